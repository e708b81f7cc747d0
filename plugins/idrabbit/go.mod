module github.com/idgen/idgen/plugins/idrabbit

go 1.26.0

require github.com/idgen/idgen v0.0.0-00010101000000-000000000000

require github.com/rabbitmq/amqp091-go v1.17.0

replace (
	github.com/idgen/idgen => ../..
	github.com/idgen/idgen/plugins/redis => ../redis
)
