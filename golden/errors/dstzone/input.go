package dstzone

//idgen:number prefix=ORD zone=America/New_York
type OrderNo string
