package nearmiss

// idgen:snowflake prefix=usr
type UserID int64

// IDGEN:uuid7
type SessionID [16]byte

// idgen snowflake
type OrderID int64

/*idgen:objectid*/
type DocumentID [12]byte

// Idgen: number prefix=ORD
type OrderNo string

// idgen: the library that writes these types is not an annotation, and neither is
// idgen:frobnicate, nor
// idgen: number of retries.
type plain int64

var _ plain
