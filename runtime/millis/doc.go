// Package millis is the one rule by which idgen's stores write times and durations as
// Unix milliseconds. Both round up: a recorded time is never below the instant it stands
// for (a later lease holder starts after it), and a TTL or lock's duration is never
// shortened (an expiry computed from the store's own clock, read to the whole
// millisecond, may stand up to a millisecond before now plus that duration). Every backend follows it: the SQL, Redis and etcd ones of this repository,
// and any a third party writes for lease.Backend, segment.Store or idem.Store.
package millis
