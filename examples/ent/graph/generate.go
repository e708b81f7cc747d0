// Package graph serves the ent example's GraphQL API: the Relay node(id:) and nodes(ids:)
// queries over users and orders, whose IDs are BIGINT columns and "usr_…"/"ord_…" text.
package graph

//go:generate go tool gqlgen
