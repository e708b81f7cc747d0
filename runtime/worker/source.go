package worker

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Source tells a generator which worker ID it runs as. Static sources resolve at
// construction; a lease-based source (package runtime/lease) implements the same interface.
type Source interface {
	// WorkerID returns the worker ID, in [0, max] for the max the source was built with.
	WorkerID(ctx context.Context) (int64, error)
}

// EnvVar is the environment variable [Env] reads when given no name.
const EnvVar = "IDGEN_WORKER_ID"

// fixed is a Source resolved at construction; it never blocks and never fails.
type fixed int64

func (f fixed) WorkerID(context.Context) (int64, error) { return int64(f), nil }

// Static returns a Source that always answers id. It fails with a [*RangeError] unless
// 0 <= id <= max.
func Static(id, max int64) (Source, error) {
	return check(id, max, "static")
}

// Env returns a Source that answers the worker ID held in the environment variable name, or
// [EnvVar] if name is empty. The variable is read once, here, so a misconfigured process
// fails at start; an unset or empty variable is an error wrapping [ErrNotSet], a value that
// is not plain decimal digits a [*ParseError], and an ID outside [0, max] a [*RangeError].
func Env(name string, max int64) (Source, error) {
	if name == "" {
		name = EnvVar
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return nil, &notSetError{name: name, empty: ok}
	}
	id, err := parseDecimal(v)
	if err != nil {
		return nil, &ParseError{Source: name, Value: v, Err: err}
	}
	return check(id, max, name)
}

// StatefulSet returns a Source that answers the ordinal of a Kubernetes StatefulSet pod: the
// decimal digits after the last '-' of hostname's first label ("orders-7" and
// "orders-7.orders.shop.svc.cluster.local" are 7). An empty hostname means
// [os.Hostname]. The hostname is read once, here; one without a trailing ordinal is a
// [*ParseError], an ordinal outside [0, max] a [*RangeError].
//
// The ordinal is unique only within one StatefulSet: pods of two sets sharing a generator
// layout need disjoint ranges, which leases give and ordinals do not.
func StatefulSet(hostname string, max int64) (Source, error) {
	if hostname == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("worker: reading hostname: %w", err)
		}
		hostname = h
	}
	// With setHostnameAsFQDN the pod's hostname is "web-3.web.default.svc.cluster.local":
	// the ordinal ends the first label.
	pod, _, _ := strings.Cut(hostname, ".")
	i := strings.LastIndexByte(pod, '-')
	if i < 0 {
		return nil, &ParseError{Source: "hostname", Value: hostname, Err: errNoOrdinal}
	}
	id, err := parseDecimal(pod[i+1:])
	if err == errNotDecimal {
		err = errNoOrdinal
	}
	if err != nil {
		return nil, &ParseError{Source: "hostname", Value: hostname, Err: err}
	}
	return check(id, max, fmt.Sprintf("hostname %q", hostname))
}

// parseDecimal accepts ASCII digits only: strconv.ParseInt alone would also take a sign.
func parseDecimal(s string) (int64, error) {
	if s == "" {
		return 0, errNotDecimal
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errNotDecimal
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errOverflow // digits only, so range is the one way to fail
	}
	return id, nil
}

func check(id, max int64, source string) (Source, error) {
	if max < 0 || id < 0 || id > max {
		return nil, &RangeError{ID: id, Max: max, Source: source}
	}
	return fixed(id), nil
}
