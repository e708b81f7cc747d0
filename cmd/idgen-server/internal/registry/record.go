package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrUndecodable is matched by the error List returns beside the records it could read
// when it skipped others that do not decode (written by something else, or corrupted):
// one bad record does not hide the fleet.
var ErrUndecodable = errors.New("registry: undecodable records skipped")

// skipped counts the records a List skipped, keeping the first one's error.
type skipped struct {
	n     int
	first error
}

func (s *skipped) add(err error) {
	if s.n == 0 {
		s.first = err
	}
	s.n++
}

func (s *skipped) err() error {
	if s.n == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d, the first: %w", ErrUndecodable, s.n, s.first)
}

// record is an Instance as Redis and etcd keep it (the ID is in the key): JSON, so that
// an operator reads it with redis-cli or etcdctl.
type record struct {
	URL       string `json:"url"`
	Worker    int64  `json:"worker"`
	StartedMS int64  `json:"started_ms"`
	ExpiresMS int64  `json:"expires_ms"`
}

func encode(in Instance, expires time.Time) []byte {
	b, _ := json.Marshal(record{URL: in.URL, Worker: in.Worker, StartedMS: in.Started.UnixMilli(), ExpiresMS: expires.UnixMilli()})
	return b
}

func decode(id string, b []byte) (Instance, error) {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return Instance{}, fmt.Errorf("registry: record of %s: %w", id, err)
	}
	return Instance{ID: id, URL: r.URL, Worker: r.Worker, Started: time.UnixMilli(r.StartedMS), Expires: time.UnixMilli(r.ExpiresMS)}, nil
}
