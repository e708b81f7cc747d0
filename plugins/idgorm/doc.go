// Package idgorm is the idgen plugin for GORM: it fills zero ID fields on create, and
// CreateOrGet turns a duplicate insert into the row that already exists.
//
// Install it once:
//
//	db.Use(idgorm.New(idgorm.Config{}))
//
// On every create (Create, CreateInBatches, Save of a new row, FirstOrCreate, and rows
// created through associations) it gives each row its own ID in every zero field whose
// type cmd/idgen-gen wrote (they implement idgen.Generated), and in plain fields tagged
//
//	ID  int64  `idgen:"snowflake"` // int64, uint64, or string (decimal)
//	Ref string `idgen:"uuid7"`     // string
//
// A value the caller set is kept. Generated snowflake types tell GORM they are a plain
// BIGINT, so an ID primary key of such a type is not an auto-increment column; a plain
// int64 primary key tagged idgen:"snowflake" works too (GORM writes the value given).
// Creates from maps are filled the same way when the map lacks the field.
//
// Models that set IDs in their own BeforeCreate call Fill, the same logic.
//
// # Column types
//
// Every generated type names its column for AutoMigrate (GormDataType): bigint for
// snowflake IDs, varchar of the exact width for business numbers and TypeID text,
// varchar(36) for UUIDs, varchar(24) for ObjectIds, the text Value writes. Generated with
// idgen-gen -gorm, UUID kinds also implement GormDBDataType: a native uuid column on
// PostgreSQL and char(36) on MySQL and MariaDB. binary(16) is not supported. README.md
// has the table; TestColumnTypes proves it on each database.
//
// # Idempotent create
//
// CreateOrGet inserts first, with no query before the insert. When the unique key named
// with Key already holds a row, it loads that row (its real ID, not the pre-assigned one)
// into the caller's struct and reports created=false; the row's AfterCreate hooks and
// association saves do not run. On PostgreSQL and SQLite the insert is
// INSERT ... ON CONFLICT (key) DO NOTHING, so a transaction of the caller's survives the
// conflict; on MySQL and MariaDB a plain INSERT whose duplicate-key error names the key's
// index, followed by a locking read so that, under REPEATABLE READ, a row committed by a
// concurrent transaction after ours began is still found. A conflict on any other unique
// key or on the primary key is a *uniq.DuplicateError naming the constraint, never someone
// else's row. Statements: one when new, two on a hit, and on the first call for a table
// and key one more before them, the lookup of the key's unique index (below).
//
// A soft-deleted row holding the key is loaded (DeletedAt set) and reported with
// ErrDeleted: the key was used, and reusing it must not silently create a second row.
//
// Belongs-to associations are saved by GORM before the insert; on a hit inside a
// transaction of the caller's they stay, as any statement of the caller's would.
//
// # The key's unique index
//
// CreateOrGet is only as safe as the database's unique index on the key, so it checks that
// there is one before it inserts: a unique index, unique constraint or primary key whose
// key columns are exactly the key's columns, in any order. The first call for a table and
// key reads the database's catalog, on the caller's connection and in one statement:
// pg_index on PostgreSQL (the table resolved through the session's search_path, as the
// INSERT resolves it; unique constraints have indexes of their names there),
// information_schema.STATISTICS of the current database on MySQL and MariaDB, and
// pragma_table_info, pragma_index_list and pragma_index_info on SQLite. An index counts
// whether a gorm tag or a migration made it. Indexes that ON CONFLICT cannot use, or that
// refuse rows the key would accept, are ignored (and named in the error): partial ones
// (with WHERE) and those on expressions on PostgreSQL and SQLite, deferrable constraints
// and invalid indexes on PostgreSQL, indexes on a column prefix on MySQL. An index on more
// columns than the key (the key and a tenant, say) does not make the key unique and does
// not count either.
//
// Without such an index CreateOrGet inserts nothing and returns a *NoUniqueKeyError
// (matched by ErrNoUniqueKey) naming the model, the table, the key's columns and the fix,
// "create a unique index on exactly (request_key)", with the unique indexes on some of the
// columns it saw and why they did not count. A table that does not exist is a
// *NoTableError (ErrNoTable).
//
// What the lookup finds is cached in the plugin per connection pool (one database),
// dialect, table and key, so later calls cost no statement beyond the insert and its read.
// A refusal is not cached: an index a migration creates while the process runs is found
// by the next call. On MySQL and MariaDB a duplicate is recognised by the names of the
// indexes found, so Index is not needed; given, it is checked to be one of them. If an
// index found and cached is dropped later, PostgreSQL and SQLite refuse the
// INSERT ... ON CONFLICT, and CreateOrGet returns a *NoUniqueKeyError carrying the
// database's error and looks again on the next call; the same happens on PostgreSQL when
// the session's search_path leads the same table name to a table without the index.
// MySQL's plain INSERT cannot tell and inserts: a process that found an index trusts it
// until it restarts.
package idgorm
