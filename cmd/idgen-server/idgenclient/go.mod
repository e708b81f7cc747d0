module github.com/idgen/idgen/cmd/idgen-server/idgenclient

go 1.26.0

replace (
	github.com/idgen/idgen => ../../..
	github.com/idgen/idgen/plugins/redis => ../../../plugins/redis
)

require (
	connectrpc.com/connect v1.21.1
	google.golang.org/protobuf v1.36.12
)
