// Package idgorm is the idgen plugin for GORM: it fills zero ID fields on create, and
// CreateOrGet turns a duplicate insert into the row that already exists.
//
// Install it once:
//
//	db.Use(idgorm.New(idgorm.Config{}))
//
// On every create (Create, CreateInBatches, Save of a new row, FirstOrCreate, upserts,
// map creates, and rows created through associations) it gives each row its own ID in
// the zero fields it fills. A value the caller set is kept. Models that set IDs in their
// own BeforeCreate call Fill, the same logic.
//
// # Which fields are filled
//
// A new ID belongs in the row's own identity, never in a reference to another row, so
// the plugin fills:
//
//   - the primary key, when its type is one cmd/idgen-gen wrote (it implements
//     idgen.Generated);
//   - a field of such a type marked idgen:"fill", such as a business number that is not
//     the key (an OrderNo column);
//   - a plain field tagged idgen:"snowflake" (int64, uint64, or decimal string) or
//     idgen:"uuid7" (string), key or not.
//
// In this model the plugin fills ID, No and Ref, and leaves UserID to the caller:
//
//	type Order struct {
//		ID     models.OrderID `gorm:"primaryKey"` // the key
//		No     models.OrderNo `idgen:"fill"`      // marked
//		UserID models.UserID                      // a reference: never filled
//		Ref    string         `idgen:"uuid7"`     // tagged
//	}
//
// It never fills a field GORM does not write (gorm:"-", gorm:"->"), a foreign key of a
// relationship declared on the model (belongs-to, or the ParentID of a has-many on
// itself), or a field the insert leaves out with Select or Omit; marking such a field is
// an error at its first create, naming it. idgen:"-" opts a field out, the primary key
// included (when the database fills it). An unmarked reference such as UserID above is
// left as the caller set it: a forgotten one stays zero, and a foreign-key constraint
// refuses it, rather than pointing at a row that does not exist.
//
// Generated snowflake types tell GORM they are a plain BIGINT, so an ID primary key of
// such a type is not an auto-increment column; a plain int64 primary key tagged
// idgen:"snowflake" works too (GORM writes the value given).
//
// # Inserts that leave the ID out
//
// An insert whose Select or Omit leaves out a primary key the plugin fills, and that the
// database does not fill either, is refused before it runs, with an error naming the
// field: the row would have no ID (SQLite would store NULL). Map creates through a model
// (db.Model(&T{}).Create(map[string]any{...})) get the ID when the map's value for it,
// under the field name or the column name, is missing, nil, a nil pointer or zero; the
// new value goes under the key the map has, so GORM writes one column. A map create
// without a model (db.Table("t").Create(map)) cannot be filled, since nothing says which
// column is the ID or of what type: when a row lacks a primary-key column the database
// does not fill (read from the catalog once per table: no default, identity,
// AUTO_INCREMENT or rowid), the create is refused with an error naming the column.
//
// # Upserts
//
// A row created with clause.OnConflict whose key was already held is not inserted, so
// the ID the plugin gave it was never stored. After the statement each such row holds
// the ID stored in the row that holds its key: on PostgreSQL and SQLite, for DoUpdates
// and UpdateAll, the plugin adds RETURNING of the key and GORM reads it; otherwise (MySQL
// and MariaDB, DoNothing, DoUpdates with Where) it reads the stored IDs back by
// OnConflict.Columns in one statement (MySQL's SQL does not use them; the plugin does, so
// name them there too). Without Columns it cannot find the row, and a row that was not
// inserted gets the zero ID, as GORM leaves an auto-increment key after DO NOTHING; never
// one that was not stored. A string key under a case-insensitive collation matches only
// when it has the stored case. Models with a composite primary key are left as GORM
// leaves them.
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
// and key one more before them, the lookup of the key's unique index (below). SQLite's
// duplicate-key message names only the columns; CreateOrGet names the unique index on
// exactly those columns from the catalog (a plain Create returns the driver's error, in
// which runtime/uniq finds the table and columns but no name).
//
// Check compares each field as the database compares what it was sent (uniq.Same): a nil
// pointer (a nullable generated type, *sql.NullString) is NULL, and an instant is equal
// at the precision its column keeps, read from the catalog once per table
// (PostgreSQL's timestamp: microseconds; MySQL's and MariaDB's DATETIME(n) or TIMESTAMP(n):
// n digits, GORM's default being 3; SQLite keeps the text the driver writes, to the
// nanosecond), so that an identical retry of time.Now() is not a mismatch.
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
