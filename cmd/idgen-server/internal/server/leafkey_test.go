package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestLeafKeys: Leaf's snowflake path ignores its key as Leaf does (a key naming a tag of
// another kind or no tag is served by leaf_snowflake_tag), uses a key naming a snowflake
// tag the token may use, and answers a token limited to some tags the same for a tag it
// may not use, a tag of another kind and no tag at all. A fresh segment tag's first ID is
// 1: warming it at start takes none.
func TestLeafKeys(t *testing.T) {
	const usrToken = "usr-only-token-0123456789"
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`
snowflake:
  layout: classic
  lease: {store: local, ttl: 3s}
leaf_snowflake_tag: id
tokens:
  - {name: all, token: `+allToken+`}
  - {name: usr, token: `+usrToken+`, tags: [usr]}
tags:
  - {name: id, kind: snowflake}
  - {name: usr, kind: snowflake, prefix: usr}
  - {name: order, kind: segment, store: local}
  - {name: ord, kind: number, prefix: ORD}
`)
	waitReady(t, s.URL)
	get := func(token, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	// The fresh segment tag: 1 first, on Leaf's path as on the API.
	if code, body := get(allToken, "/api/segment/get/order"); code != 200 || body != "1" {
		t.Fatalf("first ID of a fresh segment tag: %d %q, want 1", code, body)
	}
	r, err := client(s.URL, allToken).Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "order"}))
	if err != nil || r.Msg.Id != 2 {
		t.Fatalf("second ID: %v %v, want 2", r, err)
	}

	for _, key := range []string{"id", "usr", "order", "ord", "nope"} {
		code, body := get(allToken, "/api/snowflake/get/"+key)
		if code != 200 || body == "" || strings.Trim(body, "0123456789") != "" {
			t.Errorf("snowflake path, key %q: %d %q, want an ID", key, code, body)
		}
	}
	if code, body := get(usrToken, "/api/snowflake/get/usr"); code != 200 {
		t.Errorf("a token's own snowflake tag: %d %q", code, body)
	}
	code0, body0 := get(usrToken, "/api/snowflake/get/nope")
	if code0 != http.StatusForbidden {
		t.Errorf("a limited token, unknown key: %d %q, want 403 for leaf_snowflake_tag", code0, body0)
	}
	for _, key := range []string{"id", "order", "ord", "nope2"} {
		if code, body := get(usrToken, "/api/snowflake/get/"+key); code != code0 || body != body0 {
			t.Errorf("a limited token, key %q: %d %q; unknown key: %d %q (the answer tells tags apart)", key, code, body, code0, body0)
		}
	}
}
