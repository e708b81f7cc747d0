//go:build unix

package lease_test

import (
	"testing"

	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// The fleet harness (worker processes, their logs, the checks) is package leasetest,
// shared with plugins/etcdlease; this package hands it its backends.

func TestMain(m *testing.M) { leasetest.Main(m, open) }

// TestProcesses is the proof that leases keep IDs unique across processes, on every store
// (leasetest.Processes; the README says what it checks).
func TestProcesses(t *testing.T) { leasetest.Processes(t, kinds) }

// BenchmarkFleet measures IDs per second from 1 and 8 processes on every store.
func BenchmarkFleet(b *testing.B) { leasetest.Bench(b, kinds) }
