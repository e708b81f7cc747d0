// Package bench compares idgen's snowflake generator with peer ID libraries: Go benchmarks
// of one ID at a time, serial and parallel, and sustained windows that measure IDs per
// second, CPU cores used and fairness between goroutines (cmd/sustain). It also measures
// New, String, MarshalJSON and Parse of each kind of ID type cmd/idgen-gen writes beside
// google/uuid and go.jetify.com/typeid (Kinds, cmd/kinds).
//
// It is its own module so the peers never become dependencies of idgen. Every constructor
// here returns a fresh generator: idgen's borrow policy and the capped generators carry
// state from one run to the next, so no generator is shared between measurements.
package bench
