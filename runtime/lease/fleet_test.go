//go:build unix

package lease_test

import (
	"testing"

	"github.com/idgen/idgen/runtime/lease/internal/leasefleet"
)

// The fleet harness (worker processes, their logs, the checks) is package leasefleet,
// shared with runtime/lease/etcdlease; this package hands it its backends.

func TestMain(m *testing.M) { leasefleet.Main(m, open) }

// TestProcesses is the proof that leases keep IDs unique across processes, on every store
// (leasefleet.Processes; the README says what it checks).
func TestProcesses(t *testing.T) { leasefleet.Processes(t, kinds) }

// BenchmarkFleet measures IDs per second from 1 and 8 processes on every store.
func BenchmarkFleet(b *testing.B) { leasefleet.Bench(b, kinds) }
