// Package control is idgen-server's control plane, apart from the data plane that issues
// IDs: the change log of the tags an admin changes through the console, kept in the
// stores those tags live in, and the fleet, the instances sharing a lease store as one
// of them sees them.
//
// Nothing here issues an ID: the server hands it what it reads (stores, its own Status,
// the fleet key) and the console shows what it returns.
package control
