// Package c shares no prefix.
package c

//idgen:snowflake prefix=ord
type OrderID int64
