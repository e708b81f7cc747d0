package badvalues

//idgen:snowflake json=text
type A int64

//idgen:snowflake layout=twitterish
type B int64

//idgen:number check=maybe
type C string

//idgen:typeid sql=json
type D [16]byte

//idgen:snowflake prefix=usr json=number
type E int64

//idgen:uuid7 prefix=x
type F [16]byte
