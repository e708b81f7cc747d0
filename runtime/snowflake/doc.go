// Package snowflake mints 64-bit IDs that are unique across a fleet and increase with time:
// a time field, a worker field and a sequence, laid out by a [Layout] and issued by a
// [Generator] that never returns a duplicate, whatever the clock does.
//
// A Generator reads time from a [Clock]. The default clock reads the wall clock once, at
// start, and then advances with Go's monotonic clock, so stepping the system clock while the
// process runs cannot move IDs back. A clock that is behind the last issued time (after a
// restart on a host whose clock went back, or when a worker ID is taken over from another
// process) is handled by a [RollbackPolicy]; a tick whose sequence is used up by an
// [ExhaustPolicy]. No policy ever issues an ID twice: they differ in whether the caller
// waits, gets an error, or receives IDs stamped a bounded time ahead of the clock.
//
// Under sustained load the generator keeps the whole capacity of its layout: a caller that
// waited for the next tick and woke late (Go's timers on Linux wake about a millisecond
// late) still issues in the tick it waited for rather than skipping it, so the generator
// delivers its full rate while its IDs trail the clock by at most [Options.CatchUp]. In that
// state callers yield the processor every 256 IDs, so many goroutines waiting on one
// generator share its ticks fairly.
//
// While it is busy (more than one ID per tick), a generator on the system clock runs one
// goroutine that caches the current tick about once per tick, so issuing an ID costs one
// atomic load and one compare-and-swap instead of a clock read; the goroutine exits after
// 64 idle ticks. IDs are then stamped up to about a tick behind the clock.
//
// A [Gate] lets an outside authority, such as a worker-ID lease, bound what a generator
// issues: only IDs stamped before the gate's deadline (a time on the generator's clock),
// and none once it is closed. The generator compares the tick it is about to stamp with
// the deadline, so a gated generator caches the clock like any other and issues at the
// same cost; a process resumed after a pause may issue a few IDs stamped from before the
// pause, never one stamped at or after the deadline.
//
// At low rates a new tick does not restart its sequence at zero but at the value after the
// previous tick's last one (within a small window), so the low bits, which sharding schemes
// like id % 16 read, are spread evenly instead of piling onto shard 0.
package snowflake
