package codec_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"
	_ "time/tzdata" // the vectors name zones; do not depend on the machine's zoneinfo

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/objectid"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/typeid"
)

// vectorsFile is the published test vectors of the text forms, beside their spec
// (docs/text-forms.md), so other languages test their readers and writers against the same
// lines the Go code is tested against here.
const vectorsFile = "../../docs/text-forms.json"

type validVector struct {
	Prefix    *string `json:"prefix"`
	Text      string  `json:"text"`
	Canonical string  `json:"canonical"` // the text written back, when it differs (case)
	Value     string  `json:"value"`
	Tick      *int64  `json:"tick"`
	Worker    *int64  `json:"worker"`
	Seq       *int64  `json:"seq"`
	Time      string  `json:"time"`
}

// canonical is the text a writer gives for the vector's value.
func (v validVector) canonical() string {
	if v.Canonical != "" {
		return v.Canonical
	}
	return v.Text
}

func (v validVector) prefix(t *testing.T) string {
	t.Helper()
	if v.Prefix == nil {
		t.Fatalf("vector %q has no prefix", v.Text)
	}
	return *v.Prefix
}

type invalidVector struct {
	Prefix *string `json:"prefix"`
	Text   string  `json:"text"`
	Why    string  `json:"why"`
}

type form struct {
	Valid   []validVector   `json:"valid"`
	Invalid []invalidVector `json:"invalid"`
}

type layoutVector struct {
	Name           string `json:"name"`
	Epoch          string `json:"epoch"`
	UnitMillis     int64  `json:"unit_ms"`
	TimeBits       uint8  `json:"time_bits"`
	WorkerBits     uint8  `json:"worker_bits"`
	SeqBits        uint8  `json:"seq_bits"`
	DatacenterBits uint8  `json:"datacenter_bits"`
	Order          string `json:"order"`
	Width          uint8  `json:"width"`
}

type numberFormat struct {
	Prefix       string          `json:"prefix"`
	Time         string          `json:"time"`
	Zone         string          `json:"zone"`
	Offset       string          `json:"offset"`
	Layout       layoutVector    `json:"layout"`
	Check        bool            `json:"check"`
	UniqueDigits int             `json:"unique_digits"`
	Length       int             `json:"length"`
	Valid        []validVector   `json:"valid"`
	Invalid      []invalidVector `json:"invalid"`
	Unwritable   []string        `json:"unwritable"`
}

type vectors struct {
	Alphabet string         `json:"base32_alphabet"`
	Decimal  form           `json:"decimal"`
	Prefixed form           `json:"prefixed"`
	Number   []numberFormat `json:"number"`
	UUID7    form           `json:"uuid7"`
	TypeID   form           `json:"typeid"`
	ObjectID form           `json:"objectid"`
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	// Unknown fields are refused, so a vector field no test reads cannot creep in; the
	// top-level comment is the one exception.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, "comment")
	rest, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", vectorsFile, err)
	}
	return v
}

func int64Of(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("vector value %q: %v", s, err)
	}
	return v
}

func bytesOf(t *testing.T, s string, n int) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		t.Fatalf("vector value %q: want %d bytes in hex (%v)", s, n, err)
	}
	return b
}

// wantInvalid fails t unless err is a refusal of v.
func wantInvalid(t *testing.T, v invalidVector, err error, is error) {
	t.Helper()
	if err == nil {
		t.Errorf("%q (%s) was accepted", v.Text, v.Why)
	} else if !errors.Is(err, is) {
		t.Errorf("%q: error %v does not match %v", v.Text, err, is)
	}
}

// TestTextFormVectors checks every reader and writer of the text forms against
// docs/text-forms.json: each valid text parses to its value and the value is written as the
// canonical text; each invalid text is refused.
func TestTextFormVectors(t *testing.T) {
	v := loadVectors(t)
	if v.Alphabet != "0123456789abcdefghjkmnpqrstvwxyz" {
		t.Errorf("alphabet %q", v.Alphabet)
	}

	t.Run("decimal", func(t *testing.T) {
		checkCounts(t, v.Decimal)
		for _, c := range v.Decimal.Valid {
			want := int64Of(t, c.Value)
			got, err := codec.ParseInt64("ID", c.Text)
			if err != nil || got != want {
				t.Errorf("ParseInt64(%q) = %d, %v; want %d", c.Text, got, err, want)
			}
			if s := strconv.FormatInt(want, 10); s != c.canonical() {
				t.Errorf("FormatInt(%d) = %q, want %q", want, s, c.canonical())
			}
		}
		for _, c := range v.Decimal.Invalid {
			_, err := codec.ParseInt64("ID", c.Text)
			wantInvalid(t, c, err, codec.ErrInvalid)
		}
	})

	t.Run("prefixed", func(t *testing.T) {
		checkCounts(t, v.Prefixed)
		for _, c := range v.Prefixed.Valid {
			p, want := c.prefix(t), int64Of(t, c.Value)
			got, err := codec.ParsePrefixed("ID", p, c.Text)
			if err != nil || got != want {
				t.Errorf("ParsePrefixed(%q, %q) = %d, %v; want %d", p, c.Text, got, err, want)
			}
			if s := string(codec.AppendPrefixed(nil, p, want)); s != c.canonical() {
				t.Errorf("AppendPrefixed(%q, %d) = %q, want %q", p, want, s, c.canonical())
			}
		}
		for _, c := range v.Prefixed.Invalid {
			p := validVector{Prefix: c.Prefix, Text: c.Text}.prefix(t)
			_, err := codec.ParsePrefixed("ID", p, c.Text)
			wantInvalid(t, c, err, codec.ErrInvalid)
		}
	})

	t.Run("number", func(t *testing.T) {
		if len(v.Number) == 0 {
			t.Fatal("no number formats")
		}
		for _, nf := range v.Number {
			t.Run(nf.Prefix+nf.Time, func(t *testing.T) { checkNumberFormat(t, nf) })
		}
	})

	t.Run("uuid7", func(t *testing.T) {
		checkCounts(t, v.UUID7)
		for _, c := range v.UUID7.Valid {
			want := [16]byte(bytesOf(t, c.Value, 16))
			got, err := codec.ParseUUID("ID", c.Text)
			if err != nil || got != want {
				t.Errorf("ParseUUID(%q) = %x, %v; want %x", c.Text, got, err, want)
			}
			if s := string(codec.AppendUUID(nil, want)); s != c.canonical() {
				t.Errorf("AppendUUID(%x) = %q, want %q", want, s, c.canonical())
			}
		}
		for _, c := range v.UUID7.Invalid {
			_, err := codec.ParseUUID("ID", c.Text)
			wantInvalid(t, c, err, codec.ErrInvalid)
		}
	})

	t.Run("typeid", func(t *testing.T) {
		checkCounts(t, v.TypeID)
		for _, c := range v.TypeID.Valid {
			p, want := c.prefix(t), [16]byte(bytesOf(t, c.Value, 16))
			got, err := typeid.Parse(p, c.Text)
			if err != nil || got != want {
				t.Errorf("typeid.Parse(%q, %q) = %x, %v; want %x", p, c.Text, got, err, want)
			}
			if gp, gu, err := typeid.Split(c.Text); err != nil || gp != p || gu != want {
				t.Errorf("typeid.Split(%q) = %q, %x, %v", c.Text, gp, gu, err)
			}
			if s := typeid.Format(p, want); s != c.canonical() {
				t.Errorf("typeid.Format(%q, %x) = %q, want %q", p, want, s, c.canonical())
			}
		}
		for _, c := range v.TypeID.Invalid {
			p := validVector{Prefix: c.Prefix, Text: c.Text}.prefix(t)
			_, err := typeid.Parse(p, c.Text)
			wantInvalid(t, c, err, typeid.ErrInvalid)
		}
	})

	t.Run("objectid", func(t *testing.T) {
		checkCounts(t, v.ObjectID)
		for _, c := range v.ObjectID.Valid {
			want := [12]byte(bytesOf(t, c.Value, 12))
			got, err := codec.ParseObjectID("ID", c.Text)
			if err != nil || got != want {
				t.Errorf("ParseObjectID(%q) = %x, %v; want %x", c.Text, got, err, want)
			}
			if s := string(objectid.Append(nil, want)); s != c.canonical() {
				t.Errorf("objectid.Append(%x) = %q, want %q", want, s, c.canonical())
			}
			if tm := objectid.Time(want).Format(time.RFC3339); tm != c.Time {
				t.Errorf("objectid.Time(%x) = %s, want %s", want, tm, c.Time)
			}
		}
		for _, c := range v.ObjectID.Invalid {
			_, err := codec.ParseObjectID("ID", c.Text)
			wantInvalid(t, c, err, codec.ErrInvalid)
		}
	})
}

// checkCounts fails a form without both valid and invalid vectors: an empty list would
// pass whatever the code does.
func checkCounts(t *testing.T, f form) {
	t.Helper()
	if len(f.Valid) == 0 || len(f.Invalid) == 0 {
		t.Fatalf("%d valid and %d invalid vectors", len(f.Valid), len(f.Invalid))
	}
}

// presets are the layouts the vectors name, as idgen-gen's layout= option does.
var presets = map[string]func() snowflake.Layout{
	"classic":   snowflake.Classic,
	"classicdc": snowflake.ClassicDC,
	"sonyflake": snowflake.Sonyflake,
	"jsonsafe":  snowflake.JSONSafe,
}

func checkNumberFormat(t *testing.T, nf numberFormat) {
	preset, ok := presets[nf.Layout.Name]
	if !ok {
		t.Fatalf("unknown layout %q", nf.Layout.Name)
	}
	l := preset()
	// The vector spells the layout out for other languages: it must be the preset's.
	width := l.Width
	if width == 0 {
		width = 63
	}
	got := layoutVector{
		Name: nf.Layout.Name, Epoch: l.Epoch.UTC().Format(time.RFC3339), UnitMillis: l.Unit.Milliseconds(),
		TimeBits: l.TimeBits, WorkerBits: l.WorkerBits, SeqBits: l.SeqBits, DatacenterBits: l.DatacenterBits,
		Order: l.Order.String(), Width: width,
	}
	if got != nf.Layout {
		t.Fatalf("layout %+v, the preset is %+v", nf.Layout, got)
	}
	zone, err := time.LoadLocation(nf.Zone)
	if err != nil {
		t.Fatal(err)
	}
	if _, off := l.Epoch.In(zone).Zone(); time.Duration(off)*time.Second != offsetOf(t, nf.Offset) {
		t.Fatalf("zone %s has offset %ds, the vector says %s", nf.Zone, off, nf.Offset)
	}
	f, err := number.Compile(number.Spec{Prefix: nf.Prefix, Time: nf.Time, Zone: zone, Layout: l, Check: nf.Check})
	if err != nil {
		t.Fatal(err)
	}
	check := 0
	if nf.Check {
		check = 1
	}
	if f.Width() != nf.Length || nf.Length != len(nf.Prefix)+len(nf.Time)+nf.UniqueDigits+check {
		t.Errorf("width %d, vector length %d = %d+%d+%d+%d?", f.Width(), nf.Length, len(nf.Prefix), len(nf.Time), nf.UniqueDigits, check)
	}
	if len(nf.Valid) == 0 || len(nf.Invalid) == 0 || len(nf.Unwritable) == 0 {
		t.Fatalf("%d valid, %d invalid, %d unwritable vectors", len(nf.Valid), len(nf.Invalid), len(nf.Unwritable))
	}
	for _, c := range nf.Valid {
		want := snowflake.ID(int64Of(t, c.Value))
		id, err := f.Parse(c.Text)
		if err != nil || id != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.Text, id, err, want)
		}
		if s, err := f.Format(want); err != nil || s != c.canonical() {
			t.Errorf("Format(%d) = %q, %v; want %q", want, s, err, c.canonical())
		}
		p, err := l.Decode(want)
		if err != nil || c.Tick == nil || c.Worker == nil || c.Seq == nil || p.Tick != *c.Tick || p.Worker != *c.Worker || p.Seq != *c.Seq {
			t.Errorf("%d decodes to %+v, %v; the vector says tick %v worker %v seq %v", want, p, err, c.Tick, c.Worker, c.Seq)
		}
		if tm, err := f.Time(want); err != nil || tm.Format(time.RFC3339Nano) != c.Time {
			t.Errorf("Time(%d) = %s, %v; want %s", want, tm.Format(time.RFC3339Nano), err, c.Time)
		}
	}
	for _, c := range nf.Invalid {
		_, err := f.Parse(c.Text)
		wantInvalid(t, c, err, number.ErrInvalid)
		// why names the part a reader reports: length, prefix, time, unique part or check
		// digit, in that order of checking.
		var pe *number.ParseError
		if errors.As(err, &pe) && pe.Reason != c.Why {
			t.Errorf("%q: reason %q, the vector says %q", c.Text, pe.Reason, c.Why)
		}
	}
	for _, s := range nf.Unwritable {
		if got, err := f.Format(snowflake.ID(int64Of(t, s))); err == nil {
			t.Errorf("Format(%s) = %q, want an error", s, got)
		}
	}
}

func offsetOf(t *testing.T, s string) time.Duration {
	t.Helper()
	tm, err := time.Parse("-07:00", s)
	if err != nil {
		t.Fatalf("offset %q: %v", s, err)
	}
	_, off := tm.Zone()
	return time.Duration(off) * time.Second
}
