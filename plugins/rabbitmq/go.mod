module github.com/idgen/idgen/plugins/rabbitmq

go 1.26.0

require (
	github.com/idgen/idgen/runtime/consume v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/runtime/idem v0.0.0-00010101000000-000000000000
)

require (
	github.com/idgen/idgen/internal v0.0.0-00010101000000-000000000000 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.13.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-sql-driver/mysql v1.10.2 // indirect
	github.com/rabbitmq/amqp091-go v1.17.0
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	github.com/idgen/idgen/internal => ../../internal
	github.com/idgen/idgen/runtime/consume => ../../runtime/consume
	github.com/idgen/idgen/runtime/idem => ../../runtime/idem
)
