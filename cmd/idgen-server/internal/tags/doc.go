// Package tags is the model of a served tag: what it issues from, its IDs and their
// text forms (decimal, typed prefix_base32, business numbers, UUIDv7, TypeID), how its
// IDs decode, how large a List of them may be, and the immutable table of them a server
// serves.
//
// It issues and reads IDs and knows nothing of transports, tokens or stores, so that the
// data plane (API handlers) and the server that builds the tags share one definition.
package tags
