module github.com/idgen/idgen/plugins/idrabbit

go 1.25.0

require github.com/idgen/idgen v0.1.0

require github.com/rabbitmq/amqp091-go v1.17.0
