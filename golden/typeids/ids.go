// Package typeids is the golden case for TypeIDs.
package typeids

import "github.com/google/uuid"

// UserTID is a TypeID with prefix "user", stored as a UUID.
//
//idgen:typeid prefix=user
type UserTID uuid.UUID

// LineItemTID has an underscore in its prefix and is stored as text.
//
//idgen:typeid prefix=line_item sql=text
type LineItemTID [16]byte

// BareTID has no prefix.
//
//idgen:typeid
type BareTID uuid.UUID
