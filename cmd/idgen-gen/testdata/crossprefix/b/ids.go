// Package b gives AdminID the prefix usr too, which a claimed first.
package b

//idgen:typeid prefix=usr
type AdminID [16]byte
