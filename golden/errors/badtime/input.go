package badtime

//idgen:number prefix=ORD time=2006-01-02
type A string

//idgen:number prefix=ORD time=200601
type B string

//idgen:number prefix=ORD time=060102150405 layout=sonyflake
type C string
