package localzone

//idgen:number prefix=ORD zone=Local
type OrderNo string
