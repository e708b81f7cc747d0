package server_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestCreateTagBounds: on SQLite (which turns an integer overflow into a REAL), a first
// ID above config.MaxFirstID or a step above config.MaxStep is refused with a typed
// error before anything is written; at the bounds the tag issues IDs, and a server
// started afterwards on the same store still starts.
func TestCreateTagBounds(t *testing.T) {
	db := testserver.SQLite(t, "local")
	cfg := "stores:\n" + db + "tags:\n  - {name: uuid, kind: uuid7}\ntag_store: local\n"
	a := testserver.Start(t, cfg)
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		first, step int64
		want        error
	}{
		{"huge-first", math.MaxInt64 - 10, 10, control.ErrInvalidInput},
		{"huge-step", 1, math.MaxInt64 / 2, control.ErrBadStep},
		{"both", math.MaxInt64 / 2, math.MaxInt64 / 2, nil},
		{"first-over", config.MaxFirstID + 1, 1, control.ErrInvalidInput},
		{"step-over", 1, config.MaxStep + 1, control.ErrBadStep},
	} {
		err := a.Admin().CreateSegmentTag(ctx, "test", tc.name, tc.first, tc.step)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("CreateSegmentTag(%q, %d, %d) = %v, want %v", tc.name, tc.first, tc.step, err, tc.want)
		}
		if a.Serves(tc.name) {
			t.Errorf("%q served after a refusal", tc.name)
		}
	}
	if err := a.Admin().CreateSegmentTag(ctx, "test", "edge", config.MaxFirstID, config.MaxStep); err != nil {
		t.Fatalf("at the bounds: %v", err)
	}
	if err := a.Admin().SetStep(ctx, "test", "edge", config.MaxStep+1); !errors.Is(err, control.ErrBadStep) {
		t.Errorf("SetStep above MaxStep: %v, want ErrBadStep", err)
	}
	c := client(a.URL, "")
	for range 3 {
		r, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "edge"}))
		if err != nil || r.Msg.Id < config.MaxFirstID {
			t.Fatalf("Next of edge: %v, %v", r, err)
		}
	}
	// Another instance on the store starts and serves every tag.
	b := testserver.Start(t, cfg)
	testserver.WaitReady(t, b.URL)
	if r, err := client(b.URL, "").Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "edge"})); err != nil || r.Msg.Id < config.MaxFirstID {
		t.Fatalf("Next of edge on a second server: %v, %v", r, err)
	}
}

// TestConfigStepBounds: a configured step above config.MaxStep is refused with its
// file, line and field.
func TestConfigStepBounds(t *testing.T) {
	for _, field := range []string{"step", "min_step", "max_step"} {
		text := "listen: 127.0.0.1:7070\nstores:\n  local: {type: sqlite}\ntags:\n  - {name: order, kind: segment, store: local, " + field + ": 4611686018427387904}\n"
		_, err := config.Parse("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "x.yaml:5: tags[0].") || !strings.Contains(err.Error(), "at most") {
			t.Errorf("%s above MaxStep: %v", field, err)
		}
	}
}
