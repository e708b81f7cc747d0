module github.com/idgen/idgen/cmd/idgen-server/idgenclient

go 1.26.0

replace (
	github.com/idgen/idgen => ../../..
	github.com/idgen/idgen/plugins/redis => ../../../plugins/redis
)

require (
	connectrpc.com/connect v1.21.1
	github.com/idgen/idgen v0.0.0-00010101000000-000000000000
	google.golang.org/protobuf v1.36.12
)
