module github.com/idgen/idgen/examples/orderconsumer

go 1.26.0

require (
	github.com/glebarez/sqlite v1.11.0
	github.com/idgen/idgen v0.0.0
	github.com/idgen/idgen/examples v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/plugins/gorm v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/plugins/otel v0.0.0
	github.com/idgen/idgen/plugins/rabbitmq v0.0.0
	github.com/idgen/idgen/runtime/consume v0.0.0-00010101000000-000000000000
	github.com/idgen/idgen/runtime/idem v0.0.0-00010101000000-000000000000
	github.com/prometheus/client_golang v1.23.2
	github.com/rabbitmq/amqp091-go v1.17.0
	go.opentelemetry.io/otel/exporters/prometheus v0.66.0
	go.opentelemetry.io/otel/sdk/metric v1.44.0
	gorm.io/gorm v1.31.2
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/glebarez/go-sqlite v1.21.2 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/idgen/idgen/internal v0.0.0-00010101000000-000000000000 // indirect
	github.com/idgen/idgen/runtime/lease v0.0.0-00010101000000-000000000000 // indirect
	github.com/idgen/idgen/runtime/segment v0.0.0-00010101000000-000000000000 // indirect
	github.com/idgen/idgen/runtime/uniq v0.0.0-00010101000000-000000000000 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.67.5 // indirect
	github.com/prometheus/otlptranslator v1.0.0 // indirect
	github.com/prometheus/procfs v0.20.1 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.44.0 // indirect
	go.opentelemetry.io/otel/metric v1.44.0 // indirect
	go.opentelemetry.io/otel/sdk v1.44.0 // indirect
	go.opentelemetry.io/otel/trace v1.44.0 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
	modernc.org/sqlite v1.62.0 // indirect
)

replace (
	github.com/idgen/idgen => ../..
	github.com/idgen/idgen/cmd/idgen-gen => ../../cmd/idgen-gen
	github.com/idgen/idgen/examples => ..
	github.com/idgen/idgen/golden => ../../golden
	github.com/idgen/idgen/internal => ../../internal
	github.com/idgen/idgen/plugins/ent => ../../plugins/ent
	github.com/idgen/idgen/plugins/gorm => ../../plugins/gorm
	github.com/idgen/idgen/plugins/otel => ../../plugins/otel
	github.com/idgen/idgen/plugins/rabbitmq => ../../plugins/rabbitmq
	github.com/idgen/idgen/runtime/consume => ../../runtime/consume
	github.com/idgen/idgen/runtime/idem => ../../runtime/idem
	github.com/idgen/idgen/runtime/lease => ../../runtime/lease
	github.com/idgen/idgen/runtime/segment => ../../runtime/segment
	github.com/idgen/idgen/runtime/uniq => ../../runtime/uniq
)
