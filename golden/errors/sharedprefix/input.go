package sharedprefix

import "github.com/google/uuid"

//idgen:snowflake prefix=usr
type UserID int64

//idgen:typeid prefix=usr
type UserTID uuid.UUID

//idgen:snowflake prefix=ord
type OrderID int64

//idgen:number prefix=ord
type OrderNo string

//idgen:snowflake prefix=acc
type AccountID int64
