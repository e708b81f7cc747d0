package badzone

//idgen:number prefix=ORD zone=Mars/Olympus_Mons
type OrderNo string
