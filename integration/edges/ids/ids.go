// Package ids holds one typed ID of every kind for the edge tests: the types a gin, echo,
// oapi-codegen, gqlgen, sqlx or validator service binds from its callers.
package ids

import "github.com/google/uuid"

//go:generate go tool idgen-gen

// UserID is a snowflake ID in decimal text.
//
//idgen:snowflake
type UserID int64

// AccountID is a snowflake ID with a text prefix.
//
//idgen:snowflake prefix=acct
type AccountID int64

// OrderNo is a business number with a check digit.
//
//idgen:number prefix=ORD time=20060102150405 zone=UTC check=true
type OrderNo string

// TraceID is a UUIDv7.
//
//idgen:uuid7
type TraceID uuid.UUID

// InvoiceID is a TypeID.
//
//idgen:typeid prefix=invoice
type InvoiceID uuid.UUID

// DocumentID is a MongoDB ObjectId.
//
//idgen:objectid
type DocumentID [12]byte
