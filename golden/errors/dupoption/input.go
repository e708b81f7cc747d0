package dupoption

//idgen:snowflake json=string json=number
type UserID int64
