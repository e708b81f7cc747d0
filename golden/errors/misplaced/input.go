package misplaced

//idgen:snowflake
var UserID int64

// Doc of a function.
//
//idgen:uuid7
func New() {}
