module github.com/idgen/idgen/plugins/idjetstream

go 1.25.0

require (
	github.com/idgen/idgen v0.1.0
	github.com/nats-io/nats.go v1.53.1
)

require (
	github.com/klauspost/compress v1.20.0 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
