// Package a gives UserID the prefix usr.
package a

//idgen:snowflake prefix=usr
type UserID int64
