// Package golden holds the expected output of cmd/idgen-gen: one package per case, each
// with its annotated input and the file the generator writes for it. They are real
// packages of the module, so go build and go vet check the generated code and their tests
// exercise it. Error cases live under errors/, each with the stderr it must produce.
//
// Rewrite the expected files with: go test ./cmd/idgen-gen -update
package golden
