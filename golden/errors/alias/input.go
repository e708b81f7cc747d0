package alias

//idgen:snowflake
type UserID = int64
