package idgen

// Version is the release of idgen this source belongs to. Every module of idgen is
// released at the same version; .ci/release rewrites this line.
const Version = "v0.1.0"
