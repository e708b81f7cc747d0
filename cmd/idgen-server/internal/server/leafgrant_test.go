package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestLeafSameAnswerUnknownOrForbidden: a token limited to some tags gets the same
// answer from Leaf's paths for a tag that exists but is not granted to it and for a tag
// that does not exist, with and without leaf_snowflake_tag: the paths do not tell it
// which tags exist.
func TestLeafSameAnswerUnknownOrForbidden(t *testing.T) {
	for _, leafTag := range []string{"", "leaf_snowflake_tag: id\n"} {
		s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`snowflake:
  lease: {store: local, ttl: 3s}
tokens:
  - {name: all, token: `+allToken+`}
  - {name: ids, token: ids-only-token-0123456789, tags: [id]}
  - {name: orders, token: orders-only-token-0123456789, tags: [order]}
tags:
  - {name: id, kind: snowflake}
  - {name: secret, kind: snowflake}
  - {name: vault, kind: segment, store: local}
  - {name: order, kind: segment, store: local}
`+leafTag)
		testserver.WaitReady(t, s.URL)
		for _, token := range []string{"ids-only-token-0123456789", "orders-only-token-0123456789"} {
			for _, kind := range []string{"snowflake", "segment"} {
				forbidden := map[string]string{"snowflake": "secret", "segment": "vault"}[kind]
				code1, body1 := leafGet(t, s.URL+"/api/"+kind+"/get/"+forbidden, token)
				code2, body2 := leafGet(t, s.URL+"/api/"+kind+"/get/no-such-tag", token)
				// An answer may repeat the name asked for; nothing else may differ.
				body1 = strings.ReplaceAll(body1, forbidden, "NAME")
				body2 = strings.ReplaceAll(body2, "no-such-tag", "NAME")
				if code1 != code2 || (code1 != http.StatusOK && body1 != body2) {
					t.Errorf("%q, token %s, %s path: a tag not granted answers %d %q, an unknown one %d %q",
						leafTag, token[:6], kind, code1, body1, code2, body2)
				}
			}
		}
	}
}

func leafGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
