// Package ent is the ent code generated for the example's schema, with idgen's CreateOrGet.
package ent

//go:generate go run entc.go
