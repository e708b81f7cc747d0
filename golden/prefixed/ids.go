// Package prefixed is the golden case for snowflake IDs with a text prefix.
package prefixed

//idgen:snowflake prefix=usr
type UserID int64

//idgen:snowflake prefix=ord layout=jsonsafe
type OrderID int64
