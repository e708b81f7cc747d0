package quote

//idgen:number prefix="ORD
type OrderNo string

//idgen:number prefix="ORD"x
type TxnNo string
