package unknownkind

//idgen:snowflak
type UserID int64
