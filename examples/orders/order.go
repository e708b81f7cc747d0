package main

import (
	"time"

	"github.com/idgen/idgen/examples/quickstart/models"
)

// Order is one order. Account and RequestID are the idempotency key the middleware
// served the request under (idem.Key's Scope and Value): unique together, so each account
// has its own keys and a key reused by another account is another order.
type Order struct {
	No        models.OrderNo `gorm:"primaryKey;size:40"`
	Account   string         `gorm:"size:64;not null;uniqueIndex:idx_orders_account_request_id,priority:1"`
	RequestID string         `gorm:"size:255;not null;uniqueIndex:idx_orders_account_request_id,priority:2"`
	Cents     int64          `gorm:"not null"`
	CreatedAt time.Time
}
