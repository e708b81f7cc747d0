package wrongtype

//idgen:snowflake
type UserID string

//idgen:number
type OrderNo int64

//idgen:uuid7
type SessionID [32]byte

//idgen:typeid prefix=user
type UserTID struct{ U [16]byte }
