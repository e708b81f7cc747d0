package worker

import (
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// result is what a constructor should give: an ID, or an error matching err (a *RangeError
// or *ParseError compared by fields, anything else by errors.Is) with message msg.
type result struct {
	id  int64
	err error
	msg string
}

func checkResult(t *testing.T, src Source, err error, want result) {
	t.Helper()
	if want.err == nil {
		if err != nil {
			t.Fatalf("err = %v, want ID %d", err, want.id)
		}
		// Canceled on purpose: a resolved source answers without waiting on ctx.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		id, err := src.WorkerID(ctx)
		if err != nil || id != want.id {
			t.Fatalf("WorkerID = %d, %v; want %d, nil", id, err, want.id)
		}
		return
	}
	if err == nil {
		t.Fatalf("got source %v, want error %q", src, want.msg)
	}
	if src != nil {
		t.Errorf("got source %v with error, want nil", src)
	}
	if got := err.Error(); got != want.msg {
		t.Errorf("message:\n got %s\nwant %s", got, want.msg)
	}
	switch w := want.err.(type) {
	case *RangeError:
		var got *RangeError
		if !errors.As(err, &got) {
			t.Fatalf("errors.As(%T, *RangeError) = false", err)
		}
		if *got != *w {
			t.Errorf("RangeError = %+v, want %+v", *got, *w)
		}
	case *ParseError:
		var got *ParseError
		if !errors.As(err, &got) {
			t.Fatalf("errors.As(%T, *ParseError) = false", err)
		}
		if got.Source != w.Source || got.Value != w.Value {
			t.Errorf("ParseError Source, Value = %q, %q; want %q, %q", got.Source, got.Value, w.Source, w.Value)
		}
		if !errors.Is(err, w.Err) {
			t.Errorf("errors.Is(err, %v) = false; Err = %v", w.Err, got.Err)
		}
		if errors.Unwrap(got) != got.Err {
			t.Errorf("Unwrap does not return Err")
		}
	default:
		if !errors.Is(err, w) {
			t.Errorf("errors.Is(err, %v) = false", w)
		}
	}
	// One kind per failure: a caller switching on kind must not see two.
	var re *RangeError
	var pe *ParseError
	kinds := 0
	for _, is := range []bool{errors.As(err, &re), errors.As(err, &pe), errors.Is(err, ErrNotSet)} {
		if is {
			kinds++
		}
	}
	if kinds != 1 {
		t.Errorf("error %v matches %d kinds, want 1", err, kinds)
	}
}

var staticTests = []struct {
	name    string
	id, max int64
	want    result
}{
	{"zero", 0, 1023, result{id: 0}},
	{"max", 1023, 1023, result{id: 1023}},
	{"middle", 7, 1023, result{id: 7}},
	{"max zero", 0, 0, result{id: 0}},
	{"max int64", math.MaxInt64, math.MaxInt64, result{id: math.MaxInt64}},
	{"max+1", 1024, 1023, result{
		err: &RangeError{ID: 1024, Max: 1023, Source: "static"},
		msg: "worker: worker ID 1024 from static out of range [0, 1023]",
	}},
	{"negative", -1, 1023, result{
		err: &RangeError{ID: -1, Max: 1023, Source: "static"},
		msg: "worker: worker ID -1 from static out of range [0, 1023]",
	}},
	{"min int64", math.MinInt64, 1023, result{
		err: &RangeError{ID: math.MinInt64, Max: 1023, Source: "static"},
		msg: "worker: worker ID -9223372036854775808 from static out of range [0, 1023]",
	}},
	{"max negative", 0, -1, result{
		err: &RangeError{ID: 0, Max: -1, Source: "static"},
		msg: "worker: worker ID 0 from static out of range: max -1 is negative",
	}},
}

func TestStatic(t *testing.T) {
	for _, tt := range staticTests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := Static(tt.id, tt.max)
			checkResult(t, src, err, tt.want)
		})
	}
}

const unset = "\x00unset" // cannot be an environment value: marks a variable to unset

var envTests = []struct {
	name  string
	env   string // variable to set; "" is EnvVar
	arg   string // name passed to Env
	value string // or unset
	max   int64
	want  result
}{
	{"zero", "", "", "0", 1023, result{id: 0}},
	{"max", "", "", "1023", 1023, result{id: 1023}},
	{"leading zeros", "", "", "007", 1023, result{id: 7}},
	{"max zero", "", "", "0", 0, result{id: 0}},
	{"default name spelled out", "", EnvVar, "5", 1023, result{id: 5}},
	{"own name", "APP_WORKER", "APP_WORKER", "12", 31, result{id: 12}},
	{"max+1", "", "", "1024", 1023, result{
		err: &RangeError{ID: 1024, Max: 1023, Source: EnvVar},
		msg: "worker: worker ID 1024 from IDGEN_WORKER_ID out of range [0, 1023]",
	}},
	{"max negative", "", "", "0", -1, result{
		err: &RangeError{ID: 0, Max: -1, Source: EnvVar},
		msg: "worker: worker ID 0 from IDGEN_WORKER_ID out of range: max -1 is negative",
	}},
	{"own name out of range", "APP_WORKER", "APP_WORKER", "32", 31, result{
		err: &RangeError{ID: 32, Max: 31, Source: "APP_WORKER"},
		msg: "worker: worker ID 32 from APP_WORKER out of range [0, 31]",
	}},
	{"unset", "", "", unset, 1023, result{
		err: ErrNotSet,
		msg: "worker: environment variable IDGEN_WORKER_ID is not set",
	}},
	{"empty", "", "", "", 1023, result{
		err: ErrNotSet,
		msg: "worker: environment variable IDGEN_WORKER_ID is empty",
	}},
	{"own name unset", "APP_WORKER", "APP_WORKER", unset, 1023, result{
		err: ErrNotSet,
		msg: "worker: environment variable APP_WORKER is not set",
	}},
	{"other variable set", "", "APP_WORKER", "5", 1023, result{
		err: ErrNotSet,
		msg: "worker: environment variable APP_WORKER is not set",
	}},
	{"letters", "", "", "abc", 1023, parseErr(EnvVar, "abc", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"plus", "", "", "+7", 1023, parseErr(EnvVar, "+7", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"minus", "", "", "-1", 1023, parseErr(EnvVar, "-1", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"leading space", "", "", " 7", 1023, parseErr(EnvVar, " 7", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"trailing newline", "", "", "7\n", 1023, parseErr(EnvVar, "7\n", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"hex", "", "", "0x1f", 1023, parseErr(EnvVar, "0x1f", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"underscore", "", "", "1_0", 1023, parseErr(EnvVar, "1_0", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"non-ASCII digit", "", "", "٣", 1023, parseErr(EnvVar, "٣", strconv.ErrSyntax, "not a plain decimal number: invalid syntax")},
	{"max int64", "", "", "9223372036854775807", math.MaxInt64, result{id: math.MaxInt64}},
	{"overflow", "", "", "9223372036854775808", math.MaxInt64, parseErr(EnvVar, "9223372036854775808", strconv.ErrRange, "overflows int64: value out of range")},
	{"overflow long", "", "", "99999999999999999999999", 1023, parseErr(EnvVar, "99999999999999999999999", strconv.ErrRange, "overflows int64: value out of range")},
}

func parseErr(source, value string, sentinel error, cause string) result {
	return result{
		err: &ParseError{Source: source, Value: value, Err: sentinel},
		msg: "worker: cannot parse worker ID from " + source + " " + strconv.Quote(value) + ": " + cause,
	}
}

func TestEnv(t *testing.T) {
	for _, tt := range envTests {
		t.Run(tt.name, func(t *testing.T) {
			// t.Setenv restores both variables afterwards, and forbids t.Parallel, which
			// these tests must not use anyway.
			for _, name := range []string{EnvVar, "APP_WORKER"} {
				t.Setenv(name, "")
				os.Unsetenv(name)
			}
			env := tt.env
			if env == "" {
				env = EnvVar
			}
			if tt.value != unset {
				t.Setenv(env, tt.value)
			}
			src, err := Env(tt.arg, tt.max)
			checkResult(t, src, err, tt.want)
		})
	}
}

// TestEnvReadOnce checks that a change after construction is not seen: the process keeps the
// ID it started with.
func TestEnvReadOnce(t *testing.T) {
	t.Setenv(EnvVar, "3")
	src, err := Env("", 1023)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, "4")
	if id, err := src.WorkerID(context.Background()); id != 3 || err != nil {
		t.Fatalf("WorkerID = %d, %v; want 3, nil", id, err)
	}
}

var statefulSetTests = []struct {
	name     string
	hostname string
	max      int64
	want     result
}{
	{"ordinal", "orders-7", 1023, result{id: 7}},
	{"zero", "web-0", 1023, result{id: 0}},
	{"max", "web-1023", 1023, result{id: 1023}},
	{"max zero", "web-0", 0, result{id: 0}},
	{"dashes in name", "order-api-v2-12", 1023, result{id: 12}},
	{"leading zeros", "web-007", 1023, result{id: 7}},
	{"empty name", "-5", 1023, result{id: 5}},
	{"max int64", "web-9223372036854775807", math.MaxInt64, result{id: math.MaxInt64}},
	{"max+1", "web-1024", 1023, result{
		err: &RangeError{ID: 1024, Max: 1023, Source: `hostname "web-1024"`},
		msg: `worker: worker ID 1024 from hostname "web-1024" out of range [0, 1023]`,
	}},
	{"max negative", "web-0", -1, result{
		err: &RangeError{ID: 0, Max: -1, Source: `hostname "web-0"`},
		msg: `worker: worker ID 0 from hostname "web-0" out of range: max -1 is negative`,
	}},
	{"no dash", "orders", 1023, noOrdinal("orders")},
	{"trailing dash", "orders-", 1023, noOrdinal("orders-")},
	{"dash only", "-", 1023, noOrdinal("-")},
	{"letters after dash", "orders-abc", 1023, noOrdinal("orders-abc")},
	{"digits then letters", "orders-7a", 1023, noOrdinal("orders-7a")},
	{"double dash", "orders--1", 1023, result{id: 1}},
	{"sign", "orders-+7", 1023, noOrdinal("orders-+7")},
	{"space", "orders- 7", 1023, noOrdinal("orders- 7")},
	{"trailing space", "orders-7 ", 1023, noOrdinal("orders-7 ")},
	{"hex", "orders-0x1f", 1023, noOrdinal("orders-0x1f")},
	{"fqdn", "web-3.web.default.svc.cluster.local", 1023, result{id: 3}},
	{"fqdn without ordinal", "web.default.svc", 1023, noOrdinal("web.default.svc")},
	{"digits only", "7", 1023, noOrdinal("7")},
	{"invalid UTF-8", "web-\xff", 1023, noOrdinal("web-\xff")},
	{"overflow", "web-9223372036854775808", math.MaxInt64, parseErr("hostname", "web-9223372036854775808", strconv.ErrRange, "overflows int64: value out of range")},
}

func noOrdinal(hostname string) result {
	return parseErr("hostname", hostname, strconv.ErrSyntax, "no decimal ordinal after the last '-': invalid syntax")
}

func TestStatefulSet(t *testing.T) {
	for _, tt := range statefulSetTests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := StatefulSet(tt.hostname, tt.max)
			checkResult(t, src, err, tt.want)
		})
	}
}

// TestStatefulSetOSHostname checks that "" reads os.Hostname: whatever this machine is
// called, the answer is the one for its name spelled out.
func TestStatefulSetOSHostname(t *testing.T) {
	h, err := os.Hostname()
	if err != nil {
		t.Skipf("os.Hostname: %v", err)
	}
	want, wantErr := StatefulSet(h, 1023)
	got, gotErr := StatefulSet("", 1023)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("StatefulSet(\"\") err = %v; StatefulSet(%q) err = %v", gotErr, h, wantErr)
	}
	if wantErr == nil {
		gotID, _ := got.WorkerID(context.Background())
		wantID, _ := want.WorkerID(context.Background())
		if gotID != wantID {
			t.Fatalf("StatefulSet(\"\") = %d; StatefulSet(%q) = %d", gotID, h, wantID)
		}
	}
}

func FuzzStatefulSet(f *testing.F) {
	for _, tt := range statefulSetTests {
		f.Add(tt.hostname)
	}
	const max = 1023
	f.Fuzz(func(t *testing.T, hostname string) {
		if hostname == "" {
			return // means os.Hostname, covered by TestStatefulSetOSHostname
		}
		src, err := StatefulSet(hostname, max)
		if err != nil {
			if src != nil {
				t.Fatalf("StatefulSet(%q) returned a source and error %v", hostname, err)
			}
			var re *RangeError
			var pe *ParseError
			switch {
			case errors.As(err, &re):
				if re.ID >= 0 && re.ID <= max {
					t.Fatalf("StatefulSet(%q): RangeError for in-range ID %d", hostname, re.ID)
				}
			case errors.As(err, &pe):
				if pe.Value != hostname {
					t.Fatalf("StatefulSet(%q): ParseError.Value = %q", hostname, pe.Value)
				}
			default:
				t.Fatalf("StatefulSet(%q): untyped error %T: %v", hostname, err, err)
			}
			if !strings.HasPrefix(err.Error(), "worker: ") {
				t.Fatalf("StatefulSet(%q): message %q lacks the prefix", hostname, err)
			}
			return
		}
		id, err := src.WorkerID(context.Background())
		if err != nil || id < 0 || id > max {
			t.Fatalf("StatefulSet(%q).WorkerID = %d, %v; want in [0, %d]", hostname, id, err, max)
		}
		// The ID must be the ordinal after the last '-' of the first label, read back the
		// plain way.
		pod, _, _ := strings.Cut(hostname, ".")
		i := strings.LastIndexByte(pod, '-')
		if i < 0 {
			t.Fatalf("StatefulSet(%q) = %d without a '-'", hostname, id)
		}
		if n, err := strconv.ParseUint(pod[i+1:], 10, 64); err != nil || int64(n) != id {
			t.Fatalf("StatefulSet(%q) = %d; ordinal reads %d, %v", hostname, id, n, err)
		}
	})
}
