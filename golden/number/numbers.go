// Package number is the golden case for business numbers.
package number

// OrderNo is an order number like ORD20260408123456 followed by 10 digits.
//
//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai
type OrderNo string

// TxnNo is a transaction number to the hour, with a check digit.
//
//idgen:number prefix=TXN time=2006010215 check=true
type TxnNo string

// RefundNo uses a quoted option value.
//
//idgen:number prefix="RF-" time="200601021504" zone=UTC layout=classicdc
type RefundNo string
