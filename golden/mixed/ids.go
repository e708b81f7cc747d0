// Package mixed is the golden case for every kind in one package.
package mixed

import "github.com/google/uuid"

//idgen:snowflake prefix=cus
type CustomerID int64

//idgen:number prefix=PAY time=20060102150405 check=true
type PaymentNo string

//idgen:uuid7
type TraceID uuid.UUID

//idgen:typeid prefix=invoice
type InvoiceTID uuid.UUID

//idgen:snowflake json=number
type EventID int64

//idgen:snowflake
type LedgerID int64

//idgen:objectid
type DocumentID [12]byte
