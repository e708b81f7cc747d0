module github.com/idgen/idgen/bench

go 1.26.0

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/google/uuid v1.6.0
	github.com/idgen/idgen v0.1.0
	github.com/idgen/idgen/golden v0.0.0-00010101000000-000000000000
	github.com/oklog/ulid/v2 v2.1.2
	github.com/sony/sonyflake/v2 v2.2.0
	go.jetify.com/typeid v1.3.0
)

require github.com/gofrs/uuid/v5 v5.2.0 // indirect

replace github.com/idgen/idgen/golden => ../golden
