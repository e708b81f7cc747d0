package twice

//idgen:snowflake
//idgen:snowflake prefix=usr
type UserID int64
