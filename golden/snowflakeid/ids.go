// Package snowflakeid is the golden case for snowflake IDs without a prefix, several in
// one package.
package snowflakeid

//go:generate go run github.com/idgen/idgen/cmd/idgen-gen

// UserID identifies a user.
//
//idgen:snowflake
type UserID int64

// AccountID keeps JSON numeric, for clients that want numbers.
//
//idgen:snowflake json=number
type AccountID int64

type (
	// ShardID decodes under the sonyflake layout.
	//
	//idgen:snowflake layout=sonyflake
	ShardID int64

	// plain is not annotated and gets nothing.
	plain int64
)

var _ plain
