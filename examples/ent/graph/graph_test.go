package graph_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	_ "github.com/idgen/idgen/examples/ent/ent/runtime" // the schema's hooks
	"github.com/idgen/idgen/examples/ent/graph"
	"github.com/idgen/idgen/runtime/snowflake"
)

// shop is a SQLite database with two users, a product and an order, and the GraphQL
// endpoint over it.
type shop struct {
	db       *sql.DB
	url      string
	ada, bob *ent.User
	lamp     *ent.Product
	orderNo  string // an ID type's text that no node has
}

func newShop(t *testing.T) shop {
	t.Helper()
	gen, err := snowflake.New(snowflake.Classic(), 5, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idgen.SetDefault(gen)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "shop.db")+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
	t.Cleanup(func() { client.Close() })
	ctx := context.Background()
	if err := client.Schema.Create(ctx); err != nil {
		t.Fatal(err)
	}
	s := shop{db: db}
	if s.ada, err = client.User.Create().SetEmail("ada@example.com").SetName("Ada").Save(ctx); err != nil {
		t.Fatal(err)
	}
	if s.bob, err = client.User.Create().SetEmail("bob@example.com").SetName("Bob").Save(ctx); err != nil {
		t.Fatal(err)
	}
	if s.lamp, err = client.Product.Create().SetName("Lamp").SetCents(1999).Save(ctx); err != nil {
		t.Fatal(err)
	}
	o, _, err := client.Order.Create().SetRequestID("req-1").SetCents(1999).SetUserID(s.ada.ID).CreateOrGet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.orderNo = string(o.No)
	srv := httptest.NewServer(graph.NewHandler(client))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// response is a GraphQL response: data as JSON text, to compare, and the errors' messages
// and paths.
type response struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message string `json:"message"`
		Path    []any  `json:"path"`
	} `json:"errors"`
}

func (s shop) query(t *testing.T, query string) response {
	t.Helper()
	body, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(s.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r response
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatalf("status %d: %v", res.StatusCode, err)
	}
	return r
}

// compact returns the JSON text without insignificant space, to compare.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}

func TestNode(t *testing.T) {
	s := newShop(t)
	ada, bob, prd := s.ada.ID.String(), s.bob.ID.String(), s.lamp.ID.String()
	if !strings.HasPrefix(ada, "usr_") || !strings.HasPrefix(prd, "prd_") {
		t.Fatalf("IDs %s and %s lack their prefixes", ada, prd)
	}
	fields := `id __typename ... on User { name email } ... on Product { name cents }`
	user := `{"id":"` + ada + `","__typename":"User","name":"Ada","email":"ada@example.com"}`
	product := `{"id":"` + prd + `","__typename":"Product","name":"Lamp","cents":1999}`
	cases := []struct {
		name, query, data string
		errs              []string // each error message contains one, in order
		paths             []string // each error's path, joined by "."
	}{
		{"user", `{ node(id: "` + ada + `") { ` + fields + ` } }`, `{"node":` + user + `}`, nil, nil},
		{"product", `{ node(id: "` + prd + `") { ` + fields + ` } }`, `{"node":` + product + `}`, nil, nil},
		{"nodes of two types", `{ nodes(ids: ["` + prd + `", "` + ada + `", "` + bob + `"]) { id __typename } }`,
			`{"nodes":[{"id":"` + prd + `","__typename":"Product"},{"id":"` + ada + `","__typename":"User"},{"id":"` + bob + `","__typename":"User"}]}`, nil, nil},
		{"unknown prefix", `{ node(id: "cus_0e1kz8d3t2c00") { id } }`, `{"node":null}`,
			[]string{"no registered ID type claims"}, []string{"node"}},
		{"malformed, a user ID's shape", `{ node(id: "usr_!!!!!!!!!!!!!") { id } }`, `{"node":null}`,
			[]string{"parse UserID"}, []string{"node"}},
		{"malformed, too short", `{ node(id: "usr_0e1kz") { id } }`, `{"node":null}`,
			[]string{"no registered ID type claims"}, []string{"node"}},
		{"a decimal ID", `{ node(id: "` + strconv.FormatInt(int64(s.ada.ID), 10) + `") { id } }`, `{"node":null}`,
			[]string{"no registered ID type claims"}, []string{"node"}},
		{"no prefix", `{ node(id: "` + strings.TrimPrefix(ada, "usr_") + `") { id } }`, `{"node":null}`,
			[]string{"no registered ID type claims"}, []string{"node"}},
		{"well formed, no such user", `{ node(id: "usr_0000000000001") { id } }`, `{"node":null}`,
			[]string{"could not resolve to a node"}, []string{"node"}},
		{"an ID of a type that is no node", `{ node(id: "` + s.orderNo + `") { id } }`, `{"node":null}`,
			[]string{"models.OrderNo is not a node's ID type"}, []string{"node"}},
		{"nodes, one twice, one missing", `{ nodes(ids: ["` + ada + `", "usr_0000000000001", "` + ada + `"]) { id } }`,
			`{"nodes":[{"id":"` + ada + `"},null,{"id":"` + ada + `"}]}`,
			[]string{"could not resolve to a node"}, []string{"nodes.1"}},
		{"nodes with bad IDs", `{ nodes(ids: ["` + ada + `", "cus_0e1kz8d3t2c00", "usr_!!!!!!!!!!!!!", "` + prd + `"]) { id } }`,
			`{"nodes":[{"id":"` + ada + `"},null,null,{"id":"` + prd + `"}]}`,
			[]string{"no registered ID type claims", "parse UserID"}, []string{"nodes.1", "nodes.2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.query(t, c.query)
			if got, want := compact(t, string(r.Data)), compact(t, c.data); got != want {
				t.Errorf("data\n got %s\nwant %s", got, want)
			}
			if len(r.Errors) != len(c.errs) {
				t.Fatalf("errors: got %+v, want %d containing %q", r.Errors, len(c.errs), c.errs)
			}
			for i, e := range r.Errors {
				if !strings.Contains(strings.ToLower(e.Message), strings.ToLower(c.errs[i])) {
					t.Errorf("error %d: %q lacks %q", i, e.Message, c.errs[i])
				}
				var path []string
				for _, p := range e.Path {
					b, _ := json.Marshal(p)
					path = append(path, strings.Trim(string(b), `"`))
				}
				if got := strings.Join(path, "."); got != c.paths[i] {
					t.Errorf("error %d: path %s, want %s", i, got, c.paths[i])
				}
			}
		})
	}
}

// TestColumnsStayIntegers checks what the text IDs cost in the database: the ID columns and
// the foreign key are SQLite integers, 8 bytes a key, not text.
func TestColumnsStayIntegers(t *testing.T) {
	s := newShop(t)
	for _, c := range []struct{ table, column string }{
		{"users", "id"}, {"products", "id"}, {"orders", "user_id"},
	} {
		var typ string
		if err := s.db.QueryRow(`SELECT type FROM pragma_table_info(?) WHERE name = ?`, c.table, c.column).Scan(&typ); err != nil {
			t.Fatalf("%s.%s: %v", c.table, c.column, err)
		}
		if !strings.EqualFold(typ, "integer") {
			t.Errorf("%s.%s is %s, want integer", c.table, c.column, typ)
		}
		var stored string
		if err := s.db.QueryRow(`SELECT typeof(` + c.column + `) FROM ` + c.table + ` LIMIT 1`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != "integer" {
			t.Errorf("%s.%s holds a %s, want an integer", c.table, c.column, stored)
		}
	}
}
