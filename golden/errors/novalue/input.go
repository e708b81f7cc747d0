package novalue

//idgen:snowflake prefix
type UserID int64
