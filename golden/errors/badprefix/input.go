package badprefix

//idgen:snowflake prefix=User
type UserID int64

//idgen:typeid prefix=user_
type UserTID [16]byte

//idgen:number prefix=ORD/
type OrderNo string
