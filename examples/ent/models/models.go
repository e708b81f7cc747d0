// Package models holds the typed IDs of the ent example.
package models

//go:generate go run github.com/idgen/idgen/cmd/idgen-gen

// UserID identifies a user.
//
//idgen:snowflake prefix=usr
type UserID int64

// ProductID identifies a product: a BIGINT column, "prd_…" in JSON and GraphQL.
//
//idgen:snowflake prefix=prd
type ProductID int64

// OrderNo is the order number customers see.
//
//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai check=true
type OrderNo string

// PaymentID identifies a payment: a UUIDv7, a native uuid column where there is one.
//
//idgen:uuid7
type PaymentID [16]byte

// TxnNo is the payment's transaction number, to the hour.
//
//idgen:number prefix=TXN time=2006010215
type TxnNo string
