package console

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"comma": func(n int64) string { return comma(n) },
}

// comma writes n with thousands separators: 1,234,567.
func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// rateText writes IDs per second readably.
func rateText(r float64) string {
	switch {
	case r == 0:
		return "0/s"
	case r < 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "/s"
	}
	return comma(int64(math.Round(r))) + "/s"
}

// durText writes a duration to a readable precision.
func durText(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	var s string
	switch {
	case d < time.Millisecond:
		s = strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
	case d < time.Second:
		s = strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	case d < 2*time.Minute:
		s = strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < 2*time.Hour:
		s = strconv.FormatFloat(d.Minutes(), 'f', 0, 64) + " min"
	default:
		s = strconv.FormatFloat(d.Hours(), 'f', 1, 64) + " h"
	}
	if neg {
		return "−" + s
	}
	return s
}

// spark is a sparkline: an SVG polyline's points in a W by H box.
type spark struct {
	W, H   int
	Points string
	Label  string // what it shows, for screen readers
}

// sparkOf draws values, oldest first, scaled to the largest.
func sparkOf(values []float64, label string) spark {
	sp := spark{W: 120, H: 24, Label: label}
	if len(values) < 2 {
		return sp
	}
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for i, v := range values {
		x := float64(i) * float64(sp.W) / float64(len(values)-1)
		y := float64(sp.H) - 1
		if top > 0 {
			y = float64(sp.H) - 1 - v/top*float64(sp.H-2)
		}
		fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
	}
	sp.Points = strings.TrimSpace(b.String())
	return sp
}

// instanceView is one row of the fleet table.
type instanceView struct {
	Address   string
	Self      bool
	Reachable bool
	Worker    string
	HasLease  bool // a leased worker ID (a bar)
	Lease     string
	TermMS    int64
	LeftMS    int64
	LowMS     int64
	Left      string
	Term      string
	Drift     string
	Offset    string
	Rate      string
	Spark     spark
	Issued    string
	Ready     bool
	Bad       bool
	Reason    string
}

type fleetData struct {
	Instances []instanceView
	Bad       int
	Interval  string
}

// fleetView turns the fleet's statuses into rows; now is this instance's clock when
// the answers were in.
func fleetView(peers []control.Peer, now time.Time) fleetData {
	var d fleetData
	for i, p := range peers {
		iv := instanceView{Address: p.Address, Self: i == 0}
		st := p.Status
		if p.Reason != "" || st == nil {
			// Only the generic reason: what a driver or a dial said stays in the log.
			iv.Bad, iv.Worker, iv.Reason = true, "?", cmp.Or(p.Reason, control.ReasonUnreachable)
			d.Instances = append(d.Instances, iv)
			d.Bad++
			continue
		}
		iv.Reachable, iv.Ready = true, st.Ready
		if st.Address != "" {
			iv.Address = st.Address
		}
		peerNow := now
		if st.Now != nil {
			peerNow = st.Now.AsTime()
			if !iv.Self {
				iv.Offset = signed(peerNow.Sub(now))
			}
		}
		if st.RateInterval != nil {
			d.Interval = durText(st.RateInterval.AsDuration())
		}
		if n := len(st.Rate); n > 0 {
			iv.Rate = rateText(st.Rate[n-1])
		} else {
			iv.Rate = "–"
		}
		iv.Spark = sparkOf(st.Rate, "IDs per second, the last "+strconv.Itoa(len(st.Rate))+" intervals")
		switch l := st.Lease; {
		case l == nil:
			iv.Worker, iv.Lease = "–", "no snowflake tags"
		case l.LastEvent == "static":
			iv.Worker, iv.Lease = strconv.FormatInt(l.Worker, 10), "static worker ID"
		default:
			iv.Worker = strconv.FormatInt(l.Worker, 10)
			ttl, margin := l.Ttl.AsDuration(), l.Margin.AsDuration()
			term := ttl - margin
			iv.Term, iv.TermMS, iv.LowMS = durText(ttl), term.Milliseconds(), (ttl / 3).Milliseconds()
			switch {
			case l.Worker < 0:
				iv.Worker, iv.Bad = "none", true
				iv.Reason = "lease lost (" + l.LastEvent + ")"
				if l.LastError != "" {
					iv.Reason += ": " + l.LastError
				}
			case l.Deadline != nil:
				left := l.Deadline.AsTime().Sub(peerNow)
				iv.HasLease, iv.LeftMS, iv.Left = true, max(0, left.Milliseconds()), durText(max(0, left))
				if left < ttl/3 {
					iv.Bad = true
					iv.Reason = "lease expiring: renewal late (" + l.LastEvent
					if l.LastError != "" {
						iv.Reason += ": " + l.LastError
					}
					iv.Reason += ")"
				}
			}
		}
		if st.Lease != nil {
			iv.Drift = signed(time.Duration(st.Lease.DriftNanos))
			iv.Issued = comma(int64(st.Lease.Issued))
		}
		if !st.Ready && !iv.Bad {
			iv.Bad, iv.Reason = true, "not ready: "+st.NotReadyReason
		}
		if iv.Bad {
			d.Bad++
		}
		d.Instances = append(d.Instances, iv)
	}
	return d
}

func signed(d time.Duration) string {
	switch {
	case d == 0:
		return "none"
	case d > 0:
		return "+" + durText(d)
	}
	return durText(d)
}

// tagView is one tag on the Tags page.
type tagView struct {
	Name, Kind, Store string
	FromStore         bool
	Segment           bool
	Step              int64
	Steps             spark
	StepList          string // the latest steps, oldest first
	Current           int64
	CurrentSize       int64
	Next              int64
	Buffered          int64
	Rate              string
	SecondsLeft       string
	LastTook          string
	Reserved, Failed  int64
	Waited            int64
	LastError         string
	LastErrorAt       string
}

type tagsData struct {
	Tags     []tagView
	TagStore string
	Changes  []changeView
}

type changeView struct {
	At, Who, What string
}

// tagsView turns this instance's status and the fleet's changes (newest first) into
// the Tags page.
func tagsView(st *v1.StatusResponse, tagStore string, changes []control.Change, now time.Time) tagsData {
	d := tagsData{TagStore: tagStore}
	for _, t := range st.Tags {
		tv := tagView{Name: t.Name, Kind: tags.KindName(t.Kind), Store: t.Store, FromStore: t.FromStore, Rate: rateText(t.Rate)}
		if t.Kind == v1.Kind_KIND_SEGMENT {
			tv.Segment = true
			tv.Step, tv.Current, tv.CurrentSize, tv.Next, tv.Buffered = t.Step, t.Current, t.CurrentSize, t.Next, t.Buffered
			tv.Reserved, tv.Failed, tv.Waited = t.Reserved, t.Failed, t.Waited
			var steps []float64
			var list []string
			for _, r := range t.Reservations {
				steps = append(steps, float64(r.Step))
				list = append(list, comma(r.Step))
				if r.Error != "" {
					tv.LastError, tv.LastErrorAt = r.Error, r.Time.AsTime().UTC().Format(time.RFC3339)
				}
			}
			if n := len(t.Reservations); n > 0 {
				tv.LastTook = durText(t.Reservations[n-1].Took.AsDuration())
			}
			if len(list) > 8 {
				list = append([]string{"…"}, list[len(list)-8:]...)
			}
			tv.StepList = strings.Join(list, " → ")
			tv.Steps = sparkOf(steps, "the step of each reservation, oldest first")
			switch {
			case t.Rate > 0:
				tv.SecondsLeft = "lasts " + durText(time.Duration(float64(t.Buffered)/t.Rate*float64(time.Second)))
			default:
				tv.SecondsLeft = "no traffic"
			}
		}
		d.Tags = append(d.Tags, tv)
	}
	for _, ch := range changes {
		d.Changes = append(d.Changes, changeView{At: ch.At.UTC().Format(time.DateTime + " UTC"), Who: ch.Who, What: changeText(ch)})
	}
	return d
}

// changeText says what a change did.
func changeText(c control.Change) string {
	switch c.Kind {
	case control.ChangeCreate:
		return fmt.Sprintf("create segment tag %q in store %q, first ID %d, step %d", c.Tag, c.Store, c.First, c.New)
	case control.ChangeStep:
		return fmt.Sprintf("set the step of tag %q to %d (was %d) in store %q", c.Tag, c.New, c.Old, c.Store)
	}
	return fmt.Sprintf("%s of tag %q in store %q", c.Kind, c.Tag, c.Store)
}

// decodeResult is a decoded ID, for the decode page.
type decodeResult struct {
	Kind, Tag, ID       string
	UTC, Local, Zone    string
	HasParts            bool
	Worker, Sequence    int64
	Datacenter, Machine int64
	HasDC               bool
	Counter             bool   // a segment ID: no time inside
	Note                string // what else the input could be
}

func resultView(r *v1.DecodeResponse, zone *time.Location) *decodeResult {
	d := &decodeResult{Kind: tags.KindName(r.Kind), Tag: r.Tag, Zone: zone.String()}
	if r.Id != 0 {
		d.ID = strconv.FormatInt(r.Id, 10)
	}
	switch r.Kind {
	case v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_NUMBER:
		d.HasParts = true
		d.Worker, d.Sequence, d.Datacenter, d.Machine = r.Worker, r.Sequence, r.Datacenter, r.Machine
		d.HasDC = r.Datacenter != 0 || r.Machine != 0
	case v1.Kind_KIND_SEGMENT:
		d.Counter = true
	}
	if r.Time != nil {
		t := r.Time.AsTime()
		d.UTC = t.UTC().Format("2006-01-02 15:04:05.000 UTC")
		d.Local = t.In(zone).Format("2006-01-02 15:04:05.000 -07:00 MST")
	}
	return d
}

// zones are offered in the decode form's list; any IANA name or offset is accepted.
var zones = []string{"UTC", "Asia/Shanghai", "Asia/Tokyo", "Asia/Kolkata", "Asia/Singapore", "Europe/London",
	"Europe/Berlin", "America/New_York", "America/Chicago", "America/Los_Angeles", "America/Sao_Paulo",
	"Australia/Sydney", "+08:00", "-05:00"}

// loadZone reads the form's zone: empty is UTC.
func loadZone(s string) (*time.Location, error) {
	z, err := config.LoadZone(s)
	if err != nil {
		return nil, fmt.Errorf("zone: %w", err)
	}
	return z, nil
}
