package registry

import (
	"encoding/json"
	"fmt"
	"time"
)

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
