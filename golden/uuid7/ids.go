// Package uuid7 is the golden case for UUIDv7 IDs.
package uuid7

import "github.com/google/uuid"

// SessionID is a UUIDv7 declared over uuid.UUID.
//
//idgen:uuid7
type SessionID uuid.UUID

// RequestID is a UUIDv7 declared over [16]byte.
//
//idgen:uuid7
type RequestID [16]byte
