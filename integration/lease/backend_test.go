package lease_test

import (
	"path"
	"testing"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// TestBackend runs the contract every Backend keeps (leasetest.RunBackend) against each
// store, each subtest in a namespace named for it.
func TestBackend(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			tg := k.Setup(t)
			leasetest.RunBackend(t, leasetest.Suite{Open: func(t *testing.T) lease.Backend {
				return openT(t, tg, path.Base(t.Name()))
			}})
		})
	}
}
