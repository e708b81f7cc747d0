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
// else's row. Statements: one when new, two on a hit.
//
// A soft-deleted row holding the key is loaded (DeletedAt set) and reported with
// ErrDeleted: the key was used, and reusing it must not silently create a second row.
//
// Belongs-to associations are saved by GORM before the insert; on a hit inside a
// transaction of the caller's they stay, as any statement of the caller's would.
package idgorm
