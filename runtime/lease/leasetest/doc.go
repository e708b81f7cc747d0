// Package leasetest proves that a lease.Backend keeps snowflake IDs unique across
// processes, in two steps: RunBackend checks the contract of each method against a
// backend (in one process, on any system), then Processes runs a fleet on it. Processes
// runs the test binary again as worker processes that lease worker IDs from
// the backend and issue IDs; it kills one, stops one past its lease and continues it, and
// starts one whose clock is behind; then it reads every ID the workers wrote and checks
// that none repeats and that each holder of a worker ID issued only after the previous
// one. runtime/lease's tests run it on SQLite, PostgreSQL, MySQL, Redis and the Redis
// Cluster, and plugins/etcdlease's on etcd: use it for a Backend you write for your own
// store.
//
// # The contract
//
//	func TestBackend(t *testing.T) {
//		leasetest.RunBackend(t, leasetest.Suite{Open: func(t *testing.T) lease.Backend {
//			return newBackend(t) // an empty table or key prefix of its own
//		}})
//	}
//
// Suite says what differs between stores: the shortest TTL the store keeps (etcd counts
// whole seconds), how to wait for the store to end a lease, and whether the backend must
// claim within a range of worker IDs (Range: a lease.RangeBackend, for
// lease.Config.MinWorker, as every bundled backend is).
//
// # Wiring
//
// The harness knows no backend, and imports none. A test package hands it two things: an
// Opener, which opens the backend from a Target inside a worker process, and the Kinds
// of store it runs on, each with a Setup that gives a test a Target of its own. Then
//
//	func TestMain(m *testing.M)       { leasetest.Main(m, open) }
//	func TestProcesses(t *testing.T)  { leasetest.Processes(t, kinds) }
//	func BenchmarkFleet(b *testing.B) { leasetest.Bench(b, kinds) }
//
// where, for a backend on PostgreSQL,
//
//	var kinds = []leasetest.Kind{{Name: "postgres", Setup: func(t testing.TB) leasetest.Target {
//		return leasetest.Target{Kind: "postgres", DSN: newDatabase(t)} // or t.Skip
//	}}}
//
//	func open(tg leasetest.Target, ns string) (lease.Backend, io.Closer, error) {
//		db, err := sql.Open("pgx", tg.DSN)
//		if err != nil {
//			return nil, nil, err
//		}
//		b, err := lease.NewSQL(db, sqldb.Postgres, lease.SQLOptions{Table: "lease_" + ns})
//		if err != nil {
//			db.Close()
//			return nil, nil, err
//		}
//		return b, db, nil
//	}
//
// Main must be the package's TestMain: a worker is the test binary run with -test.run=^$
// and the environment variables IDGEN_LEASE_CHILD and IDGEN_LEASE_SPEC, which Main
// recognises before any test runs. A worker is a new process: the Opener gets only the
// Target (sent as JSON) and a namespace, ns ("fleet1", "bench"), which it must keep apart
// from every other namespace on the same Target (a table or key prefix of its own), since
// each run of a test starts on an empty one. The harness uses the Backend only through
// lease.Acquire.
//
// # What Processes checks
//
// Per Kind, eight workers lease worker IDs 0 to 15 with a TTL of one second and issue 16
// IDs a millisecond, writing each ID with the wall-clock times taken just before asking for
// it and just after getting it, and logging their lease events. One second in, one worker
// is killed (SIGKILL: no release), and a TTL and a half later a new process starts and
// takes over a freed ID. Three seconds in, one is stopped (SIGSTOP) just after a renewal,
// for 2.3 TTLs; meanwhile a worker whose clock reads four seconds behind takes its ID over,
// and must wait until its clock passes the previous holder's time. Continued, the stopped
// worker must hear that its lease was lost, stamp nothing at or after its deadline, and
// issue again only under the worker ID it claims next. At the end every worker is stopped
// (SIGTERM) and closes its lease. Checked: no ID repeats; every ID belongs to a worker ID
// its process acquired, in range; successive holders of a worker ID issue in disjoint,
// increasing ticks; no worker logged an error. A run takes about ten seconds a Kind, and is
// skipped with -short. A machine too loaded to set up the clock-behind case gets the run
// again, up to three times; the invariants are checked on every run.
//
// # Tests of your own
//
// Start (and Proc's methods Run, Signal, Stop, WaitEvent, Events and IDs), CheckIDs and
// SleepUntil build other fleet scenarios, such as a store restarted or a cluster master
// killed under the fleet (etcdlease's TestProcessesEtcdRestart). A worker started in mode
// "fleet" writes its IDs to Spec.IDs and its events to Spec.Events, one line each: the
// kind, then key=value fields, at= (Unix nanoseconds) and, last and quoted, err=. The
// kinds are start (pid, behind), acquired (worker, fresh, after, clock, deadline, took),
// renewed (worker, deadline, took), acquire-failed, renew-failed, lost and released
// (worker, err), notheld (the first refusal after the lease came into doubt), first (id),
// error, closelost (Close found the lease passed on) and exit. A worker in mode "first"
// (see Env) opens the backend, says "ready" and waits for the end of its standard input,
// then claims a worker ID, prints it and exits holding it: a group of them tests many
// processes claiming at the same moment on a new store.
//
// Everything but RunBackend, Suite, Target and Kind needs a Unix system (the workers are
// driven by signals).
package leasetest
