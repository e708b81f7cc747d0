// Package typeid reads and writes TypeIDs (spec v0.3): a type prefix, an underscore and a
// UUID as 26 characters of lowercase base32, as in "user_01h455vb4pex5vsknk084sn02q".
// It works on the 16 bytes of the UUID, so any UUID type converts in and out, and it
// matches go.jetify.com/typeid v1.3.0 character for character without depending on it.
//
// The package is called typeid, not uuid or base32, because its one idea is the TypeID
// text form: prefix rules, the separator and the suffix encoding belong together, and the
// UUID itself comes from elsewhere (github.com/google/uuid in generated code).
//
// A prefix is empty, or 1 to 63 characters of [a-z_] that start and end with a letter
// (the spec's ^([a-z]([a-z_]{0,61}[a-z])?)?$). An empty prefix is written without the
// underscore. A prefix may contain underscores itself, so a TypeID splits on its last
// underscore. The suffix is the 128 bits of the UUID preceded by two zero bits, in 5-bit
// groups from the most significant, with the alphabet 0123456789abcdefghjkmnpqrstvwxyz;
// its first character is therefore at most '7'. Parsing is strict: no uppercase, no
// Crockford aliases (i, l, o, u) and no hyphens.
//
// Append and AppendSuffix write into a caller's buffer without allocating, and Parse,
// Split and DecodeSuffix allocate only to report an error.
package typeid
