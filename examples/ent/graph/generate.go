// Package graph serves the ent example's GraphQL API: the Relay node(id:) and nodes(ids:)
// queries over users and products, whose IDs are BIGINT columns and "usr_…"/"prd_…" text.
package graph

//go:generate go tool gqlgen
