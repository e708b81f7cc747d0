// Package models holds the quickstart's tables and their typed IDs.
package models

import "time"

//go:generate go run github.com/idgen/idgen/cmd/idgen-gen

// UserID identifies a user: a snowflake ID, BIGINT in the database, "usr_..." in APIs.
//
//idgen:snowflake prefix=usr
type UserID int64

// OrderNo is the order number customers see: ORD, the time in Shanghai, ten digits, and a
// check digit that catches a mistyped number.
//
//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai check=true
type OrderNo string

// User is a customer.
type User struct {
	ID   UserID `gorm:"primaryKey"`
	Name string `gorm:"size:100"`
}

// Order is one order. RequestID is the client's idempotency key: a retried request
// carries the same one.
type Order struct {
	No        OrderNo `gorm:"primaryKey;size:40"`
	RequestID string  `gorm:"size:64;uniqueIndex"`
	UserID    UserID
	Cents     int64
	CreatedAt time.Time
}
