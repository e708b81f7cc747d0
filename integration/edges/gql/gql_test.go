package gql_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/idgen/idgen/integration/edges/gql"
	"github.com/idgen/idgen/integration/edges/internal/edgecase"
)

// fields are the GraphQL names of the kinds, in the order of edgecase.Kinds.
var fields = []struct{ kind, one, many string }{
	{"snowflake", "user", "users"}, {"prefixed", "account", "accounts"}, {"number", "order", "orders"},
	{"uuid7", "trace", "traces"}, {"typeid", "invoice", "invoices"}, {"objectid", "document", "documents"},
}

const selectIDs = "{ user account order trace invoice document }"

type result struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
	raw string
}

func serve(t *testing.T, db edgecase.DB) (*httptest.Server, map[string]string) {
	tables := edgecase.Tables(t, db)
	h := handler.New(gql.NewExecutableSchema(gql.Config{Resolvers: &gql.Resolver{DB: db.DB, Tables: tables}}))
	h.AddTransport(transport.POST{})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, tables
}

func query(t *testing.T, ts *httptest.Server, q string, vars map[string]any) result {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": q, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(ts.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	var r result
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		t.Fatalf("%d %s: %v", res.StatusCode, buf.String(), err)
	}
	r.raw = buf.String()
	return r
}

// texts returns a new ID of every kind, by GraphQL name.
func texts(t *testing.T) map[string]any {
	m := map[string]any{}
	for _, f := range fields {
		m[f.one] = edgecase.Named(t, f.kind).New(t)
	}
	return m
}

func decode(t *testing.T, r result, field string) map[string]any {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %s", r.raw)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Data[field], &m); err != nil {
		t.Fatalf("%s: %s: %v", field, r.raw, err)
	}
	return m
}

const storeMutation = "mutation($in: IDsInput!) { store(input: $in) " + selectIDs + " }"

// TestGQLRoundTrip: every kind is a scalar bound to its generated type; IDs given as
// variables, as literals in the query, in lists and in an input object come back as the
// same text, and those stored are read back from SQLite and PostgreSQL.
func TestGQLRoundTrip(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gql_ok") {
		t.Run(db.Name, func(t *testing.T) {
			ts, _ := serve(t, db)
			want := texts(t)

			var params, args, literals []string
			for _, f := range fields {
				typ := map[string]string{"user": "UserID", "account": "AccountID", "order": "OrderNo", "trace": "TraceID", "invoice": "InvoiceID", "document": "DocumentID"}[f.one]
				params = append(params, "$"+f.one+": "+typ)
				args = append(args, f.one+": $"+f.one)
				literals = append(literals, f.one+": "+`"`+want[f.one].(string)+`"`)
			}
			for name, q := range map[string]string{
				"variables": "query(" + strings.Join(params, ", ") + ") { echo(" + strings.Join(args, ", ") + ") " + selectIDs + " }",
				"literals":  "{ echo(" + strings.Join(literals, ", ") + ") " + selectIDs + " }",
			} {
				got := decode(t, query(t, ts, q, want), "echo")
				for _, f := range fields {
					if got[f.one] != want[f.one] {
						t.Errorf("%s: %s = %v, want %v", name, f.one, got[f.one], want[f.one])
					}
				}
			}

			lists := map[string]any{}
			var listParams, listArgs []string
			for _, f := range fields {
				lists[f.many] = []any{want[f.one], edgecase.Named(t, f.kind).New(t)}
				typ := map[string]string{"users": "UserID", "accounts": "AccountID", "orders": "OrderNo", "traces": "TraceID", "invoices": "InvoiceID", "documents": "DocumentID"}[f.many]
				listParams = append(listParams, "$"+f.many+": ["+typ+"!]!")
				listArgs = append(listArgs, f.many+": $"+f.many)
			}
			got := decode(t, query(t, ts, "query("+strings.Join(listParams, ", ")+") { lists("+strings.Join(listArgs, ", ")+") { users accounts orders traces invoices documents } }", lists), "lists")
			for _, f := range fields {
				if g, _ := json.Marshal(got[f.many]); string(g) != mustJSON(lists[f.many]) {
					t.Errorf("lists %s: %s, want %s", f.many, g, mustJSON(lists[f.many]))
				}
			}

			got = decode(t, query(t, ts, storeMutation, map[string]any{"in": want}), "store")
			stored := decode(t, query(t, ts, "{ stored "+selectIDs+" }", nil), "stored")
			for _, f := range fields {
				if got[f.one] != want[f.one] || stored[f.one] != want[f.one] {
					t.Errorf("store %s: answered %v, stored %v, want %v", f.one, got[f.one], stored[f.one], want[f.one])
				}
			}
		})
	}
}

// listArgs are the arguments of lists: many from $v, the others empty.
func listArgs(many string) string {
	var args []string
	for _, f := range fields {
		if f.many == many {
			args = append(args, many+": $v")
		} else {
			args = append(args, f.many+": []")
		}
	}
	return strings.Join(args, ", ")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGQLRefuses: a wrong prefix, an invalid or negative ID, as a variable, a literal, in
// a list or in an input object, is a GraphQL error naming the type, with no data for the
// field; an input field sent as empty text is refused by the resolver (empty text reads as
// the zero ID), and an optional argument sent as empty text is the zero ID; nothing is
// written.
func TestGQLRefuses(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gql_bad") {
		t.Run(db.Name, func(t *testing.T) {
			ts, tables := serve(t, db)
			for _, f := range fields {
				k := edgecase.Named(t, f.kind)
				t.Run(k.Name, func(t *testing.T) {
					type request struct {
						name, query string
						vars        map[string]any
						want        string
					}
					var reqs []request
					bad := append(append([]edgecase.Text(nil), k.Bad...), edgecase.Text{Name: "JSON number -1", Text: ""})
					for _, b := range bad {
						var v any = b.Text
						if b.Name == "JSON number -1" {
							v = -1
						}
						in := texts(t)
						in[f.one] = v
						reqs = append(reqs,
							request{b.Name + " as a variable", "query($v: " + k.Type + ") { echo(" + f.one + ": $v) { " + f.one + " } }", map[string]any{"v": v}, k.Type},
							request{b.Name + " in a list", "query($v: [" + k.Type + "!]!) { lists(" + listArgs(f.many) + ") { " + f.many + " } }", map[string]any{"v": []any{texts(t)[f.one], v}}, k.Type},
							request{b.Name + " in an input object", storeMutation, map[string]any{"in": in}, k.Type},
						)
						if b.Name != "JSON number -1" {
							reqs = append(reqs, request{b.Name + " as a literal", "{ echo(" + f.one + ": " + mustJSON(b.Text) + ") { " + f.one + " } }", nil, k.Type})
						}
					}
					in := texts(t)
					in[f.one] = ""
					reqs = append(reqs, request{"empty text in an input object", storeMutation, map[string]any{"in": in}, "required"})
					for _, req := range reqs {
						r := query(t, ts, req.query, req.vars)
						if len(r.Errors) == 0 || !strings.Contains(r.raw, req.want) {
							t.Errorf("%s: %s, want an error naming %q", req.name, r.raw, req.want)
						}
					}
					r := query(t, ts, "query($v: "+k.Type+") { echo("+f.one+": $v) { "+f.one+" } }", map[string]any{"v": ""})
					if zero := mustJSON(k.Ptr().String()); len(r.Errors) > 0 || !strings.Contains(r.raw, `"`+f.one+`":`+zero) {
						t.Errorf("empty optional argument: %s, want the zero ID", r.raw)
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
