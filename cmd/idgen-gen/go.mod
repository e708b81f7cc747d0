module github.com/idgen/idgen/cmd/idgen-gen

go 1.25.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/idgen/idgen v0.1.0
	golang.org/x/tools v0.49.0
)

require (
	golang.org/x/mod v0.40.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
