// Package idpgx registers a program's generated ID types with pgx v5, so typed IDs and
// slices of them are query arguments in every exec mode.
//
// pgx finds how to send an argument from the parameter's type, which the server tells it
// in the cached and described exec modes. In QueryExecModeExec and
// QueryExecModeSimpleProtocol, the modes behind PgBouncer's transaction pooling, it
// does not ask, so it must know the Go type: a []UserID in WHERE id = ANY($1) fails there
// with "cannot find encode plan" ([]int64 works). Register tells a connection's type map
// every type in idgen's registry (idgen.Types, filled by the init functions of the files
// cmd/idgen-gen writes) as its SQL storage: int8 for snowflake IDs, text for business
// numbers (and TypeIDs stored as text, ObjectIds), uuid for UUIDv7 and TypeIDs, along
// with pointers, slices and slices of pointers to it. Values still go through the type's
// own Value and Scan, so an invalid ID is refused as it is everywhere else.
//
// Install it on a pool:
//
//	cfg, err := pgxpool.ParseConfig(dsn)
//	...
//	cfg.AfterConnect = idpgx.Register
//
// or on a single connection with idpgx.Register(ctx, conn), or on any type map with
// RegisterTypes. Types in packages linked into the program are registered; a package
// nothing imports has not run its init.
//
// The package is named for the pair it joins, idgen and pgx, as jackc's own adapters
// (pgx-google-uuid, pgx-shopspring-decimal) are.
package idpgx
