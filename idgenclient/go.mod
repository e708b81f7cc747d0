module github.com/idgen/idgen/idgenclient

go 1.25.0

require (
	connectrpc.com/connect v1.21.0
	github.com/idgen/idgen v0.1.0
	google.golang.org/protobuf v1.36.12
)
