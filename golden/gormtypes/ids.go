// Package gormtypes is the golden case for -gorm: every kind, with the GormDBDataType
// methods that give a native uuid column on PostgreSQL under AutoMigrate.
package gormtypes

import "github.com/google/uuid"

//go:generate go run github.com/idgen/idgen/cmd/idgen-gen -gorm

//idgen:snowflake prefix=usr
type UserID int64

//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai check=true
type OrderNo string

//idgen:uuid7
type SessionID uuid.UUID

//idgen:typeid prefix=invoice
type InvoiceTID uuid.UUID

//idgen:typeid prefix=line sql=text
type LineTID uuid.UUID

//idgen:objectid
type DocumentID [12]byte
