package snowflake

import (
	"testing"
	"time"
)

// TestGateWallClock: a deadline already past by the wall clock closes the gate even when
// the monotonic clock says otherwise, as after a machine suspend.
func TestGateWallClock(t *testing.T) {
	var g Gate
	g.OpenUntil(time.Now().Add(time.Hour))
	if !g.Open() {
		t.Fatal("open gate reads closed")
	}
	g.wallUntil.Store(time.Now().Add(-time.Second).UnixNano()) // wall time ran on
	if g.Open() {
		t.Fatal("gate open past its wall-clock deadline")
	}
}
