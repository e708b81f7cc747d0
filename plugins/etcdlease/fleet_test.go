//go:build unix

package etcdlease

import (
	"testing"

	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// The fleet harness (worker processes, their logs, the checks) is runtime/lease's public
// package leasetest, shared with integration/lease; this package hands it its backends.

func TestMain(m *testing.M) { leasetest.Main(m, open) }

// TestProcesses is the proof that leases keep IDs unique across processes, on etcd
// (leasetest.Processes; the README says what it checks).
func TestProcesses(t *testing.T) { leasetest.Processes(t, kinds) }

// BenchmarkFleet measures IDs per second from 1 and 8 processes on etcd.
func BenchmarkFleet(b *testing.B) { leasetest.Bench(b, kinds) }
