package number_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the tests name zones; do not depend on the machine's zoneinfo

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	z, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

var layouts = []struct {
	name   string
	layout snowflake.Layout
}{
	{"Classic", snowflake.Classic()},
	{"ClassicDC", snowflake.ClassicDC()},
	{"Sonyflake", snowflake.Sonyflake()},
	{"JSONSafe", snowflake.JSONSafe()},
}

// luhnValid is the textbook Luhn test, written apart from the package's: from the right,
// double every second digit, sum the digits of the results, want a multiple of 10.
func luhnValid(digits string) bool {
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			d = d/10 + d%10
		}
		sum += d
	}
	return sum%10 == 0
}

// sampleIDs returns IDs of l that hit the edges of every field and of the resolution,
// and random ones.
func sampleIDs(l snowflake.Layout, res time.Duration, rng *rand.Rand) []snowflake.ID {
	sub := int64(res / l.Unit)
	ticks := []int64{0, 1, sub - 1, sub, sub + 1, 86400 * int64(time.Second/l.Unit), l.MaxTick() - sub, l.MaxTick() - 1, l.MaxTick()}
	for range 20 {
		ticks = append(ticks, rng.Int64N(l.MaxTick()+1))
	}
	var ids []snowflake.ID
	for _, tick := range ticks {
		for _, w := range []int64{0, l.MaxWorker(), rng.Int64N(l.MaxWorker() + 1)} {
			for _, s := range []int64{0, l.MaxSeq(), rng.Int64N(l.MaxSeq() + 1)} {
				id, err := l.Compose(snowflake.Parts{Tick: tick, Worker: w, Seq: s})
				if err != nil {
					panic(err)
				}
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func TestRoundTrip(t *testing.T) {
	zones := []*time.Location{time.UTC, zone(t, "Asia/Shanghai"), zone(t, "Asia/Kolkata"), time.FixedZone("", -(3*3600 + 30*60))}
	times := []struct {
		layout string
		res    time.Duration
	}{
		{"20060102150405", time.Second},
		{"200601021504", time.Minute},
		{"2006010215", time.Hour},
		{"060102150405", time.Second},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range layouts {
		for _, z := range zones {
			for _, tm := range times {
				for _, check := range []bool{false, true} {
					spec := number.Spec{Prefix: "ORD", Time: tm.layout, Zone: z, Layout: l.layout, Check: check}
					name := l.name + "/" + z.String() + "/" + tm.layout
					if check {
						name += "/check"
					}
					t.Run(name, func(t *testing.T) {
						f, err := number.Compile(spec)
						_, off := l.layout.Epoch.In(z).Zone()
						switch {
						case tm.res == time.Hour && off%3600 != 0:
							// The epoch, midnight UTC, is at half past in the zone.
							wantSpecError(t, err, "Layout.Epoch")
							return
						case tm.layout[:2] == "06" && l.layout.End().Year() >= 2100:
							wantSpecError(t, err, "Time")
							return
						case err != nil:
							t.Fatal(err)
						}
						for _, id := range sampleIDs(l.layout, tm.res, rng) {
							checkRoundTrip(t, f, spec, id)
						}
					})
				}
			}
		}
	}
}

func wantSpecError(t *testing.T, err error, field string) {
	t.Helper()
	var se *number.SpecError
	if !errors.As(err, &se) || se.Field != field {
		t.Fatalf("Compile: %v, want a *SpecError on %s", err, field)
	}
}

// checkRoundTrip formats id, checks the number's shape and parses it back.
func checkRoundTrip(t *testing.T, f *number.Format, spec number.Spec, id snowflake.ID) {
	t.Helper()
	no, err := f.Format(id)
	if err != nil {
		t.Fatalf("Format(%d): %v", id, err)
	}
	if len(no) != f.Width() || !strings.HasPrefix(no, spec.Prefix) {
		t.Fatalf("Format(%d) = %q: want %d bytes starting %q", id, no, f.Width(), spec.Prefix)
	}
	digits := no[len(spec.Prefix):]
	if strings.Trim(digits, "0123456789") != "" {
		t.Fatalf("Format(%d) = %q: not all digits after the prefix", id, no)
	}
	if spec.Check && !luhnValid(digits) {
		t.Fatalf("Format(%d) = %q: fails the Luhn test", id, no)
	}
	// The time text is the ID's time as package time writes it in the zone.
	at, err := f.Time(id)
	if err != nil {
		t.Fatalf("Time(%d): %v", id, err)
	}
	if want := at.Format(spec.Time); digits[:len(spec.Time)] != want {
		t.Fatalf("Format(%d) = %q: time text %q, want %q (%v)", id, no, digits[:len(spec.Time)], want, at)
	}
	back, err := f.Parse(no)
	if err != nil || back != id {
		t.Fatalf("Parse(Format(%d) = %q) = %d, %v", id, no, back, err)
	}
	b, err := f.Append([]byte("x"), id)
	if err != nil || string(b) != "x"+no {
		t.Fatalf("Append(%d) = %q, %v; want %q", id, b, err, "x"+no)
	}
}

func TestTime(t *testing.T) {
	shanghai := zone(t, "Asia/Shanghai")
	f := number.MustCompile(number.Spec{Zone: shanghai, Layout: snowflake.Classic()})
	got, err := f.Time(167492386455461895)
	want := time.Date(2026, 4, 8, 12, 34, 56, 789e6, shanghai)
	if err != nil || !got.Equal(want) || got.Location() != shanghai {
		t.Errorf("Time = %v, %v; want %v", got, err, want)
	}
	for _, id := range []snowflake.ID{-1, -1 << 63} {
		if _, err := f.Time(id); !errors.Is(err, snowflake.ErrInvalidID) {
			t.Errorf("Time(%d): %v, want ErrInvalidID", id, err)
		}
	}
}

func TestInvalidID(t *testing.T) {
	f := number.MustCompile(number.Spec{Layout: snowflake.JSONSafe()})
	for _, id := range []snowflake.ID{-1, 1 << 53, 1<<63 - 1} {
		if no, err := f.Format(id); !errors.Is(err, snowflake.ErrInvalidID) || no != "" {
			t.Errorf("Format(%d) = %q, %v; want ErrInvalidID", id, no, err)
		}
		if b, err := f.Append([]byte("x"), id); !errors.Is(err, snowflake.ErrInvalidID) || string(b) != "x" {
			t.Errorf("Append(%d) = %q, %v; want ErrInvalidID and dst unchanged", id, b, err)
		}
	}
}

func TestSpecDefaults(t *testing.T) {
	f := number.MustCompile(number.Spec{Prefix: "ORD", Layout: snowflake.Classic()})
	got := f.Spec()
	if got.Time != "20060102150405" || got.Zone != time.UTC || got.Prefix != "ORD" || got.Layout != snowflake.Classic() || got.Check {
		t.Errorf("Spec() = %+v", got)
	}
}

// TestWidth pins the widths the package doc and the examples quote.
func TestWidth(t *testing.T) {
	for _, c := range []struct {
		spec number.Spec
		want int
	}{
		{number.Spec{Prefix: "ORD", Layout: snowflake.Classic()}, 3 + 14 + 10},                  // 1000*1024*4096-1 = 4194303999
		{number.Spec{Prefix: "ORD", Layout: snowflake.Classic(), Check: true}, 3 + 14 + 10 + 1}, // and the check digit
		{number.Spec{Layout: snowflake.Sonyflake()}, 14 + 10},                                   // 100*65536*256-1 = 1677721599
		{number.Spec{Layout: snowflake.JSONSafe(), Time: "060102150405"}, 12 + 7},               // 1000*64*64-1 = 4095999
		{number.Spec{Layout: snowflake.Classic(), Time: "2006010215"}, 10 + 14},                 // 3600000*4194304-1 = 15099494399999
		{number.Spec{Layout: snowflake.Sonyflake(), Time: "200601021504"}, 12 + 12},             // 6000*16777216-1 = 100663295999
	} {
		if got := number.MustCompile(c.spec).Width(); got != c.want {
			t.Errorf("%+v: Width = %d, want %d", c.spec, got, c.want)
		}
	}
}

// TestOrder: within a worker, numbers sort as strings in the order the IDs were issued,
// across resolution steps and calendar boundaries.
func TestOrder(t *testing.T) {
	shanghai := zone(t, "Asia/Shanghai")
	// Boundaries as wall-clock times in Shanghai: a second, a minute, an hour, a day, a
	// month and a year turning.
	edges := []time.Time{
		time.Date(2026, 4, 8, 12, 34, 56, 0, shanghai),
		time.Date(2026, 4, 8, 12, 35, 0, 0, shanghai),
		time.Date(2026, 4, 8, 13, 0, 0, 0, shanghai),
		time.Date(2026, 4, 9, 0, 0, 0, 0, shanghai),
		time.Date(2026, 5, 1, 0, 0, 0, 0, shanghai),
		time.Date(2027, 1, 1, 0, 0, 0, 0, shanghai),
		time.Date(2028, 2, 29, 0, 0, 0, 0, shanghai),
		time.Date(2028, 3, 1, 0, 0, 0, 0, shanghai),
	}
	for _, l := range layouts {
		for _, tm := range []string{"20060102150405", "2006010215", "060102150405"} {
			for _, check := range []bool{false, true} {
				if tm[:2] == "06" && l.layout.End().Year() >= 2100 {
					continue // refused: see TestRoundTrip
				}
				f := number.MustCompile(number.Spec{Prefix: "N", Time: tm, Zone: shanghai, Layout: l.layout, Check: check})
				worker := l.layout.MaxWorker() / 3
				var ids []snowflake.ID
				for _, e := range edges {
					base := l.layout.Tick(e)
					for tick := base - 3; tick <= base+3; tick++ {
						for _, seq := range []int64{0, 1, l.layout.MaxSeq() - 1, l.layout.MaxSeq()} {
							id, _ := l.layout.Compose(snowflake.Parts{Tick: tick, Worker: worker, Seq: seq})
							ids = append(ids, id)
						}
					}
				}
				rng := rand.New(rand.NewPCG(3, 4))
				for range 2000 {
					tick := l.layout.Tick(edges[0]) + rng.Int64N(int64(400*24*time.Hour/l.layout.Unit))
					id, _ := l.layout.Compose(snowflake.Parts{Tick: tick, Worker: worker, Seq: rng.Int64N(l.layout.MaxSeq() + 1)})
					ids = append(ids, id)
				}
				// Issued order: by tick, then sequence, which for one worker is ID order.
				slices.Sort(ids)
				ids = slices.Compact(ids)
				checkSorted(t, f, ids)
			}
		}
	}
}

// TestOrderGenerator issues IDs from a generator on a manual clock stepping across second
// boundaries, and checks each number sorts after the one before.
func TestOrderGenerator(t *testing.T) {
	shanghai := zone(t, "Asia/Shanghai")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			clk := snowflaketest.NewClock(time.Date(2026, 4, 8, 4, 34, 59, 900e6, time.UTC))
			gen, err := snowflake.New(l.layout, 5, snowflake.Options{Clock: clk})
			if err != nil {
				t.Fatal(err)
			}
			f := number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: l.layout, Check: true})
			var ids []snowflake.ID
			for range 60 {
				block, err := gen.NextN(context.Background(), 37)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, block...)
				clk.Advance(7 * time.Millisecond) // 60 steps of 7ms: across two second boundaries
			}
			checkSorted(t, f, ids)
			first, _ := f.Time(ids[0])
			last, _ := f.Time(ids[len(ids)-1])
			if first.Second() == last.Second() {
				t.Fatalf("IDs from %v to %v do not cross a second", first, last)
			}
		})
	}
}

// checkSorted checks the numbers of ids, in issued order, strictly increase.
func checkSorted(t *testing.T, f *number.Format, ids []snowflake.ID) {
	t.Helper()
	var prev []byte
	var prevID snowflake.ID
	for i, id := range ids {
		if i > 0 && id <= prevID {
			t.Fatalf("IDs not increasing: %d then %d", prevID, id)
		}
		no, err := f.Append(nil, id)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && bytes.Compare(prev, no) >= 0 {
			t.Fatalf("%s: ID %d -> %s sorts before or with ID %d -> %s", f.Spec().Layout, id, no, prevID, prev)
		}
		prev, prevID = no, id
	}
}

// TestOrderAcrossWorkers: numbers of different workers sort by tick first; under a
// time-worker-sequence layout exactly as the IDs do.
func TestOrderAcrossWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, l := range layouts {
		f := number.MustCompile(number.Spec{Layout: l.layout})
		for range 5000 {
			var ids [2]snowflake.ID
			var ticks [2]int64
			tick := rng.Int64N(l.layout.MaxTick() - 10)
			for i := range ids {
				ticks[i] = tick + rng.Int64N(3)
				ids[i], _ = l.layout.Compose(snowflake.Parts{Tick: ticks[i], Worker: rng.Int64N(l.layout.MaxWorker() + 1), Seq: rng.Int64N(l.layout.MaxSeq() + 1)})
			}
			a, _ := f.Format(ids[0])
			b, _ := f.Format(ids[1])
			if got, want := strings.Compare(a, b), cmpInt(ticks[0], ticks[1]); want != 0 && got != want {
				t.Fatalf("%s: ticks %d, %d: %s vs %s compare %d", l.name, ticks[0], ticks[1], a, b, got)
			}
			if l.layout.Order == snowflake.TimeWorkerSeq {
				if got, want := strings.Compare(a, b), cmpInt(int64(ids[0]), int64(ids[1])); got != want {
					t.Fatalf("%s: IDs %d, %d: %s vs %s compare %d, want %d", l.name, ids[0], ids[1], a, b, got, want)
				}
			}
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestAppendAllocs(t *testing.T) {
	f := number.MustCompile(number.Spec{Prefix: "ORD", Zone: zone(t, "Asia/Shanghai"), Layout: snowflake.Classic(), Check: true})
	buf := make([]byte, 0, f.Width())
	var id snowflake.ID = 167492386455461895
	if n := testing.AllocsPerRun(1000, func() {
		buf, _ = f.Append(buf[:0], id)
		id++
	}); n != 0 {
		t.Errorf("Append: %v allocations, want 0", n)
	}
	no := string(buf)
	if n := testing.AllocsPerRun(1000, func() {
		if _, err := f.Parse(no); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Parse: %v allocations, want 0", n)
	}
}

// TestConcurrent formats and parses with one Format from many goroutines, for -race.
func TestConcurrent(t *testing.T) {
	f := number.MustCompile(number.Spec{Prefix: "ORD", Layout: snowflake.Classic(), Check: true})
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 1000 {
				id := snowflake.ID(167492386455461895 + int64(g*1000+i))
				no, err := f.Format(id)
				if err != nil {
					t.Error(err)
					return
				}
				if back, err := f.Parse(no); err != nil || back != id {
					t.Errorf("%d -> %s -> %d, %v", id, no, back, err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
