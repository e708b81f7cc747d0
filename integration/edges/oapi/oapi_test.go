package oapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idgen/idgen/integration/edges/ids"
	"github.com/idgen/idgen/integration/edges/internal/edgecase"
	"github.com/idgen/idgen/integration/edges/oapi"
)

// serve starts the generated std net/http server over db, counting the requests that
// reach it.
func serve(t *testing.T, db edgecase.DB) (*httptest.Server, map[string]string, *atomic.Int64) {
	tables := edgecase.Tables(t, db)
	var hits atomic.Int64
	h := oapi.HandlerWithOptions(oapi.NewStrictHandler(&oapi.Server{DB: db.DB, Tables: tables}, nil), oapi.StdHTTPServerOptions{
		Middlewares: []oapi.MiddlewareFunc{func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); next.ServeHTTP(w, r) })
		}},
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, tables, &hits
}

func parse[T any](t *testing.T, parse func(string) (T, error), s string) T {
	t.Helper()
	v, err := parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// newIDs returns one new ID of every kind.
func newIDs(t *testing.T) oapi.IDs {
	k := func(name string) string { return edgecase.Named(t, name).New(t) }
	return oapi.IDs{
		User:     parse(t, ids.ParseUserID, k("snowflake")),
		Account:  parse(t, ids.ParseAccountID, k("prefixed")),
		Order:    parse(t, ids.ParseOrderNo, k("number")),
		Trace:    parse(t, ids.ParseTraceID, k("uuid7")),
		Invoice:  parse(t, ids.ParseInvoiceID, k("typeid")),
		Document: parse(t, ids.ParseDocumentID, k("objectid")),
	}
}

// TestOAPIClientServer: the generated client sends every kind in the path, the query
// (one value and an array each) and a JSON body; the generated server binds them (Bind)
// and the IDs come back unchanged, and those stored are read back from SQLite and
// PostgreSQL.
func TestOAPIClientServer(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_oapi_ok") {
		t.Run(db.Name, func(t *testing.T) {
			ts, tables, _ := serve(t, db)
			c, err := oapi.NewClientWithResponses(ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			p, a, b := newIDs(t), newIDs(t), newIDs(t)
			// Arrays of the prefixed snowflake and TypeID kinds are sent by raw requests
			// below: the client's runtime writes array elements by their Go kind
			// (TestOAPIClientArrayLimit).
			params := &oapi.EchoIDsParams{
				User: &a.User, Users: &[]ids.UserID{a.User, b.User},
				Account: &a.Account,
				Order:   &a.Order, Orders: &[]ids.OrderNo{a.Order, b.Order},
				Trace: &a.Trace, Traces: &[]ids.TraceID{a.Trace, b.Trace},
				Invoice:  &a.Invoice,
				Document: &a.Document, Documents: &[]ids.DocumentID{a.Document, b.Document},
			}
			res, err := c.EchoIDsWithResponse(context.Background(), p.User, p.Account, p.Order, p.Trace, p.Invoice, p.Document, params)
			if err != nil {
				t.Fatal(err)
			}
			if res.JSON200 == nil {
				t.Fatalf("echoIDs: %d %s", res.StatusCode(), res.Body)
			}
			got := res.JSON200
			if got.Path != p {
				t.Errorf("path: got %+v, want %+v", got.Path, p)
			}
			q := got.Query
			if q.User == nil || *q.User != a.User || q.Account == nil || *q.Account != a.Account ||
				q.Order == nil || *q.Order != a.Order || q.Trace == nil || *q.Trace != a.Trace ||
				q.Invoice == nil || *q.Invoice != a.Invoice || q.Document == nil || *q.Document != a.Document {
				t.Errorf("query values: %s", res.Body)
			}
			if q.Users == nil || len(*q.Users) != 2 || (*q.Users)[1] != b.User ||
				q.Orders == nil || len(*q.Orders) != 2 || (*q.Orders)[1] != b.Order ||
				q.Traces == nil || len(*q.Traces) != 2 || (*q.Traces)[1] != b.Trace ||
				q.Documents == nil || len(*q.Documents) != 2 || (*q.Documents)[1] != b.Document {
				t.Errorf("query arrays: %s", res.Body)
			}

			// The generated server binds arrays of every kind from their text forms.
			target := ts.URL + "/ids/" + strings.Join([]string{p.User.String(), p.Account.String(), p.Order.String(), p.Trace.String(), p.Invoice.String(), p.Document.String()}, "/") +
				"?" + url.Values{"accounts": {a.Account.String(), b.Account.String()}, "invoices": {a.Invoice.String(), b.Invoice.String()}}.Encode()
			raw, err := http.Get(target)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := oapi.ParseEchoIDsResponse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if q := parsed.JSON200; q == nil || q.Query.Accounts == nil || len(*q.Query.Accounts) != 2 || (*q.Query.Accounts)[1] != b.Account ||
				q.Query.Invoices == nil || len(*q.Query.Invoices) != 2 || (*q.Query.Invoices)[1] != b.Invoice {
				t.Errorf("arrays of prefixed and TypeIDs: %d %s", parsed.StatusCode(), parsed.Body)
			}

			stored, err := c.StoreIDsWithResponse(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if stored.JSON201 == nil || *stored.JSON201 != p {
				t.Fatalf("storeIDs: %d %s", stored.StatusCode(), stored.Body)
			}
			for kind, want := range map[string]string{
				"snowflake": p.User.String(), "prefixed": p.Account.String(), "number": p.Order.String(),
				"uuid7": p.Trace.String(), "typeid": p.Invoice.String(), "objectid": p.Document.String(),
			} {
				if got := edgecase.Stored(t, db, edgecase.Named(t, kind), tables[kind]); got != want {
					t.Errorf("%s: stored %q, want %q", kind, got, want)
				}
			}
		})
	}
}

// kindPos is each kind's position in the path and its query and body names.
var kindPos = []struct{ kind, one, many string }{
	{"snowflake", "user", "users"}, {"prefixed", "account", "accounts"}, {"number", "order", "orders"},
	{"uuid7", "trace", "traces"}, {"typeid", "invoice", "invoices"}, {"objectid", "document", "documents"},
}

// TestOAPIRefuses: a wrong prefix, an invalid or negative ID in the path, the query (one
// value or in an array) or the body is a 400 from the generated server, as is a body with
// an ID sent as empty text; an optional query parameter sent empty is no ID; nothing is
// written.
func TestOAPIRefuses(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_oapi_bad") {
		t.Run(db.Name, func(t *testing.T) {
			ts, tables, _ := serve(t, db)
			good := newIDs(t)
			goodText := []string{good.User.String(), good.Account.String(), good.Order.String(), good.Trace.String(), good.Invoice.String(), good.Document.String()}
			path := func(i int, s string) string {
				parts := append([]string(nil), goodText...)
				parts[i] = s
				for j := range parts {
					parts[j] = url.PathEscape(parts[j])
				}
				return ts.URL + "/ids/" + strings.Join(parts, "/")
			}
			body := func(i int, s string) string {
				fields := make([]string, len(kindPos))
				for j, k := range kindPos {
					v := goodText[j]
					if j == i {
						v = s
					}
					fields[j] = `"` + k.one + `":"` + v + `"`
				}
				return "{" + strings.Join(fields, ",") + "}"
			}
			send := func(t *testing.T, method, target, reqBody string) (int, string) {
				t.Helper()
				req, err := http.NewRequest(method, target, strings.NewReader(reqBody))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			for i, kp := range kindPos {
				k := edgecase.Named(t, kp.kind)
				t.Run(k.Name, func(t *testing.T) {
					type request struct{ name, method, target, body string }
					var reqs []request
					for _, bad := range k.Bad {
						reqs = append(reqs,
							request{bad.Name + " in the path", http.MethodGet, path(i, bad.Text), ""},
							request{bad.Name + " in the query", http.MethodGet, path(i, goodText[i]) + "?" + url.Values{kp.one: {bad.Text}}.Encode(), ""},
							request{bad.Name + " in a query array", http.MethodGet, path(i, goodText[i]) + "?" + url.Values{kp.many: {goodText[i], bad.Text}}.Encode(), ""},
							request{bad.Name + " in the body", http.MethodPost, ts.URL + "/ids", body(i, bad.Text)},
						)
					}
					reqs = append(reqs, request{"empty text in the body", http.MethodPost, ts.URL + "/ids", body(i, "")})
					for _, req := range reqs {
						code, msg := send(t, req.method, req.target, req.body)
						if code != http.StatusBadRequest || strings.TrimSpace(msg) == "" {
							t.Errorf("%s: %s %s %s: %d %q, want 400 with a message", req.name, req.method, req.target, req.body, code, msg)
						}
					}
					// Empty text is the zero ID in every kind: an optional parameter
					// sent empty binds as the zero ID, which the response writes back.
					code, msg := send(t, http.MethodGet, path(i, goodText[i])+"?"+kp.one+"=", "")
					var echo oapi.Echo
					if err := json.Unmarshal([]byte(msg), &echo); code != http.StatusOK || err != nil || !queryZero(echo.Query, kp.one) {
						t.Errorf("empty optional query parameter: %d %s, want 200 with the zero ID", code, msg)
					}
				})
			}
			for kind, table := range tables {
				if n := db.Count(t, table); n != 0 {
					t.Errorf("%s: %d rows written from refused requests", kind, n)
				}
			}
		})
	}
}

// queryZero reports whether q holds the zero ID under name.
func queryZero(q oapi.Query, name string) bool {
	switch name {
	case "user":
		return q.User != nil && q.User.IsZero()
	case "account":
		return q.Account != nil && q.Account.IsZero()
	case "order":
		return q.Order != nil && q.Order.IsZero()
	case "trace":
		return q.Trace != nil && q.Trace.IsZero()
	case "invoice":
		return q.Invoice != nil && q.Invoice.IsZero()
	case "document":
		return q.Document != nil && q.Document.IsZero()
	}
	return false
}

// TestOAPIClientArrayLimit pins a limit of github.com/oapi-codegen/runtime v1.9.0's
// client: it writes the elements of an array parameter by their Go kind, not their
// MarshalText, so []AccountID goes out in decimal and []InvoiceID as a bare UUID. Its own
// server refuses both with a 400, nothing is written; single values and arrays of the
// other kinds are written by their text form (TestOAPIClientServer). When the runtime
// styles elements with MarshalText this test fails: move those arrays to the client test.
func TestOAPIClientArrayLimit(t *testing.T) {
	db := edgecase.DBs(t, "edges_oapi_array")[0]
	ts, _, _ := serve(t, db)
	c, err := oapi.NewClientWithResponses(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := newIDs(t)
	for name, params := range map[string]*oapi.EchoIDsParams{
		"accounts": {Accounts: &[]ids.AccountID{p.Account}},
		"invoices": {Invoices: &[]ids.InvoiceID{p.Invoice}},
	} {
		res, err := c.EchoIDsWithResponse(context.Background(), p.User, p.Account, p.Order, p.Trace, p.Invoice, p.Document, params)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusBadRequest {
			t.Errorf("%s: %d %s: the runtime now writes array elements as text", name, res.StatusCode(), res.Body)
		}
	}
}

// TestOAPIClientRefuses: the generated client cannot send an ID its server would refuse
// (a negative snowflake ID, a malformed number made by conversion) in the path, a query
// value or the body: MarshalText or MarshalJSON fails before any request is made. (In
// an array the runtime does not call MarshalText; the server refuses those,
// TestOAPIRefuses.)
func TestOAPIClientRefuses(t *testing.T) {
	db := edgecase.DBs(t, "edges_oapi_client")[0]
	ts, tables, hits := serve(t, db)
	c, err := oapi.NewClientWithResponses(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		edit func(*oapi.IDs)
	}{
		{"negative snowflake", func(v *oapi.IDs) { v.User = -5 }},
		{"negative prefixed", func(v *oapi.IDs) { v.Account = -1 }},
		{"malformed number", func(v *oapi.IDs) { v.Order = "ORD-not-a-number" }},
		{"number with another prefix", func(v *oapi.IDs) { v.Order = "PAY202612060430001234567890" }},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			v := newIDs(t)
			b.edit(&v)
			if res, err := c.EchoIDsWithResponse(context.Background(), v.User, v.Account, v.Order, v.Trace, v.Invoice, v.Document, nil); err == nil {
				t.Errorf("echoIDs in the path: sent, %d %s", res.StatusCode(), res.Body)
			}
			w := newIDs(t)
			params := &oapi.EchoIDsParams{User: &v.User, Account: &v.Account, Order: &v.Order}
			if res, err := c.EchoIDsWithResponse(context.Background(), w.User, w.Account, w.Order, w.Trace, w.Invoice, w.Document, params); err == nil {
				t.Errorf("echoIDs in the query: sent, %d %s", res.StatusCode(), res.Body)
			}
			if res, err := c.StoreIDsWithResponse(context.Background(), v); err == nil {
				t.Errorf("storeIDs: sent, %d %s", res.StatusCode(), res.Body)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
	for kind, table := range tables {
		if n := db.Count(t, table); n != 0 {
			t.Errorf("%s: %d rows written", kind, n)
		}
	}
}
