package lease_test

import (
	"path"
	"testing"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// TestBackend runs the contract every Backend keeps (leasetest.RunBackend) against each
// store, each subtest in a namespace named for it, the "range" subtests included: the SQL,
// Redis and Redis Cluster backends all claim within a range of worker IDs.
func TestBackend(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			tg := k.Setup(t)
			// Every one claims within a range (lease.Config.MinWorker, the worker IDs beside
			// an old fleet's during a switch).
			leasetest.RunBackend(t, leasetest.Suite{Open: func(t *testing.T) lease.Backend {
				return openT(t, tg, path.Base(t.Name()))
			}, Range: true})
		})
	}
}
