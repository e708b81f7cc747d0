// Package uniq tells a unique-key violation from every other database error, and says
// which constraint, table and columns it concerns, so idempotent creates can turn a
// duplicate into a lookup of the row that already exists.
//
// Detection reads the driver's error type and code through wrapped errors, never the
// message alone, because PostgreSQL and MariaDB translate their messages: PostgreSQL
// SQLSTATE 23505 (pgx, and lib/pq by its methods), MySQL and MariaDB errors 1062 and 1586
// (go-sql-driver/mysql), and SQLite extended codes 2067 and 1555 (modernc.org/sqlite,
// glebarez/go-sqlite and mattn/go-sqlite3, recognised without importing them). Messages
// are read only for the names they carry, and only in their English shape; a violation
// whose message cannot be read is still a violation, with fewer names.
//
// Foreign-key, NOT NULL and CHECK violations are not duplicates: retrying them as lookups
// would hide real errors. The ORMs' own helpers are no substitute: ent's
// IsConstraintError also matches foreign keys, and GORM's TranslateError can drop the
// driver error that names the constraint.
package uniq
