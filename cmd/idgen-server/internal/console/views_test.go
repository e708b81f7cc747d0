package console

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestFleetViewTrouble: a lost, an expiring and a renewing lease, an instance that does
// not answer, one that refuses the fleet signature and one that is not ready: the rows
// in trouble are red with the reason, a generic one for those that did not answer.
func TestFleetViewTrouble(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	lease := func(worker int64, left time.Duration, event, lastErr string) *v1.LeaseStatus {
		l := &v1.LeaseStatus{Worker: worker, LastEvent: event, LastError: lastErr, Ttl: durationpb.New(9 * time.Second), Margin: durationpb.New(900 * time.Millisecond)}
		if worker >= 0 {
			l.Deadline = timestamppb.New(now.Add(left))
		}
		return l
	}
	status := func(ready bool, why string, l *v1.LeaseStatus) *v1.StatusResponse {
		return &v1.StatusResponse{Address: "10.0.0.1:7070", Ready: ready, NotReadyReason: why, Lease: l, Now: timestamppb.New(now), Rate: []float64{1, 5, 3}, RateInterval: durationpb.New(10 * time.Second)}
	}
	d := fleetView([]control.Peer{
		{Address: "self", Status: status(true, "", lease(3, 7*time.Second, "renewed", ""))},
		{Address: "http://b", Status: status(false, "no worker ID held (lost)", lease(-1, 0, "lost", "lease: worker 4 taken over"))},
		{Address: "http://c", Status: status(true, "", lease(5, 2*time.Second, "renew-failed", "dial tcp: refused"))},
		{Address: "http://d", Reason: control.ReasonUnreachable},
		{Address: "http://f", Reason: control.ReasonRefused},
		{Address: "http://e", Status: status(false, "a segment tag has no IDs buffered and its store fails", lease(6, 8*time.Second, "renewed", ""))},
	}, now)
	if d.Bad != 5 || len(d.Instances) != 6 {
		t.Fatalf("%d in trouble of %d, want 5 of 6", d.Bad, len(d.Instances))
	}
	for i, want := range []string{"", "lease lost (lost): lease: worker 4 taken over", "lease expiring: renewal late (renew-failed: dial tcp: refused)",
		"unreachable", "refused the fleet signature", "not ready: a segment tag has no IDs buffered"} {
		iv := d.Instances[i]
		if (want == "") == iv.Bad || !strings.HasPrefix(iv.Reason, want) || i >= 3 && i <= 4 && iv.Reason != want {
			t.Errorf("row %d: bad %v, reason %q; want %q", i, iv.Bad, iv.Reason, want)
		}
	}
	ok := d.Instances[0]
	if ok.Worker != "3" || !ok.HasLease || ok.LeftMS != 7000 || ok.TermMS != 8100 || ok.Rate != "3.0/s" || ok.Spark.Points == "" {
		t.Errorf("healthy row %+v", ok)
	}
	if d.Instances[1].Worker != "none" || d.Instances[3].Worker != "?" {
		t.Errorf("workers %q, %q", d.Instances[1].Worker, d.Instances[3].Worker)
	}
}

// TestTagsViewLasts: how long a segment tag's buffer lasts at its rate.
func TestTagsViewLasts(t *testing.T) {
	st := &v1.StatusResponse{Tags: []*v1.TagStatus{
		{Name: "busy", Kind: v1.Kind_KIND_SEGMENT, Buffered: 3000, Current: 1000, CurrentSize: 2000, Next: 2000, Rate: 100,
			Reservations: []*v1.Reservation{{Time: timestamppb.Now(), Step: 1000, Took: durationpb.New(2 * time.Millisecond)}, {Time: timestamppb.Now(), Step: 2000, Took: durationpb.New(time.Millisecond), Error: "store down"}}},
		{Name: "idle", Kind: v1.Kind_KIND_SEGMENT, Buffered: 10},
		{Name: "id", Kind: v1.Kind_KIND_SNOWFLAKE, Rate: 12345},
	}}
	d := tagsView(st, "local", nil, time.Now())
	busy, idle, id := d.Tags[0], d.Tags[1], d.Tags[2]
	if busy.SecondsLeft != "lasts 30.0 s" || busy.StepList != "1,000 → 2,000" || busy.LastError != "store down" || busy.LastTook != "1.0 ms" {
		t.Errorf("busy %+v", busy)
	}
	if idle.SecondsLeft != "no traffic" || id.Segment || id.Rate != "12,345/s" {
		t.Errorf("idle %+v, id %+v", idle, id)
	}
}
