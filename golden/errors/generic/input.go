package generic

//idgen:snowflake
type ID[T any] int64
