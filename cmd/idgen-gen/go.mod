module github.com/idgen/idgen/cmd/idgen-gen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/idgen/idgen v0.0.0-00010101000000-000000000000
	golang.org/x/tools v0.53.0
)

require (
	golang.org/x/mod v0.43.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)

replace (
	github.com/idgen/idgen => ../..
	github.com/idgen/idgen/plugins/redis => ../../plugins/redis
)
