// Package objectids is the golden case for MongoDB ObjectIds.
package objectids

// DocumentID is shared with a MongoDB collection.
//
//idgen:objectid
type DocumentID [12]byte
