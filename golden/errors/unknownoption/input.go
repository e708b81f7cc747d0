package unknownoption

//idgen:snowflake prefx=usr
type UserID int64
