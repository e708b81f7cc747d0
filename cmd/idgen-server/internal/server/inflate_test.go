package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestTokenlessInflateBounded: health (and reflection, built with the same option) answer
// without a token, so what a gzip body of theirs may inflate to is bounded as the API's is: a body of a few KiB on the
// wire that inflates to 16 MiB is refused as too large, not read whole.
func TestTokenlessInflateBounded(t *testing.T) {
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`snowflake:
  lease: {store: local, ttl: 3s}
tokens: [{token: `+allToken+`}]
tags: [{name: id, kind: snowflake}]
`)
	testserver.WaitReady(t, s.URL)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	io.WriteString(zw, `{"service":"`+strings.Repeat("a", 16<<20)+`"}`)
	zw.Close()
	path := "/grpc.health.v1.Health/Check"
	req, err := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(zipped.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "resource_exhausted") {
		t.Errorf("%s: a %d-byte gzip body of 16 MiB: %d %.200s, want resource_exhausted", path, zipped.Len(), res.StatusCode, body)
	}
}
