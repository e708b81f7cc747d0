package idem_test

import (
	"testing"

	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/idem/idemtest"
)

// conformance runs the Store contract (idemtest.Run) against a store; every Store
// implementation's test calls it.
func conformance(t *testing.T, s idem.Store) { idemtest.Run(t, s) }
