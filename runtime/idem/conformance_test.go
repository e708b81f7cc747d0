package idem_test

import (
	"testing"

	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/idem/idemtest"
)

// TestMemoryStore runs the Store contract on the memory store.
func TestMemoryStore(t *testing.T) { idemtest.Run(t, idem.NewMemory()) }
