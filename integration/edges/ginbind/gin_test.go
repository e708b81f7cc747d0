// Package ginbind_test binds every kind of generated ID with gin: from the path
// (ShouldBindUri), the query (ShouldBindQuery, with an optional parameter and an array)
// and a JSON body (ShouldBindJSON), storing what binds on SQLite and PostgreSQL.
package ginbind_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/idgen/idgen/integration/edges/ids"
	"github.com/idgen/idgen/integration/edges/internal/edgecase"
)

// id is what a generated type's pointer implements: the reader and the text form.
type id[T any] interface {
	*T
	sql.Scanner
	fmt.Stringer
}

type uriParams[T any] struct {
	ID T `uri:"id" binding:"required"`
}

type queryParams[T any] struct {
	ID    T   `form:"id" binding:"required"`
	After T   `form:"after"` // optional: empty or absent is the zero ID
	IDs   []T `form:"ids"`
}

type body[T any] struct {
	ID  T   `json:"id" binding:"required"`
	IDs []T `json:"ids"`
}

// routes serves one kind under /kind: POST /kind/:id and POST /kind (JSON) store the ID in
// table; GET /kind answers with the query's IDs. Every binding error is a 400 naming it.
func routes[T any, P id[T]](r *gin.Engine, kind string, db edgecase.DB, table string) {
	store := func(c *gin.Context, v T) {
		if _, err := db.Exec("INSERT INTO "+table+" (id) VALUES ($1)", v); err != nil {
			c.JSON(http.StatusInternalServerError, gin.H{"error": err.Error()})
			return
		}
		c.JSON(http.StatusCreated, gin.H{"id": v})
	}
	r.POST("/"+kind+"/:id", func(c *gin.Context) {
		var p uriParams[T]
		if err := c.ShouldBindUri(&p); err != nil {
			c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
			return
		}
		store(c, p.ID)
	})
	r.POST("/"+kind, func(c *gin.Context) {
		var b body[T]
		if err := c.ShouldBindJSON(&b); err != nil {
			c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
			return
		}
		store(c, b.ID)
	})
	r.GET("/"+kind, func(c *gin.Context) {
		var q queryParams[T]
		if err := c.ShouldBindQuery(&q); err != nil {
			c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
			return
		}
		ids := make([]string, len(q.IDs))
		for i := range q.IDs {
			ids[i] = P(&q.IDs[i]).String()
		}
		c.JSON(http.StatusOK, gin.H{"id": P(&q.ID).String(), "after": P(&q.After).String(), "ids": ids, "after_zero": P(&q.After).String() == P(new(T)).String()})
	})
}

func newEngine(t *testing.T, db edgecase.DB) (*gin.Engine, map[string]string) {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	tables := map[string]string{}
	for _, k := range edgecase.Kinds {
		tables[k.Name] = db.Table(t, k)
	}
	routes[ids.UserID](r, "snowflake", db, tables["snowflake"])
	routes[ids.AccountID](r, "prefixed", db, tables["prefixed"])
	routes[ids.OrderNo](r, "number", db, tables["number"])
	routes[ids.TraceID](r, "uuid7", db, tables["uuid7"])
	routes[ids.InvoiceID](r, "typeid", db, tables["typeid"])
	routes[ids.DocumentID](r, "objectid", db, tables["objectid"])
	return r, tables
}

type response struct {
	code int
	body map[string]any
	raw  string
}

func do(t *testing.T, h http.Handler, method, target, reqBody string) response {
	t.Helper()
	var rd *strings.Reader
	if reqBody != "" {
		rd = strings.NewReader(reqBody)
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, target, rd)
	if reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	res := response{code: w.Code, raw: w.Body.String()}
	if err := json.Unmarshal(w.Body.Bytes(), &res.body); err != nil {
		t.Fatalf("%s %s: %d %q: %v", method, target, w.Code, w.Body.String(), err)
	}
	return res
}

// stored returns the text form of the one ID in table, read back with the type's Scan.
func stored(t *testing.T, db edgecase.DB, k edgecase.Kind, table string) string {
	t.Helper()
	return edgecase.Stored(t, db, k, table)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestGinBinds: a valid ID of every kind binds from the path, the query and a JSON body,
// is stored, read back and answered as the same text.
func TestGinBinds(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gin_ok") {
		t.Run(db.Name, func(t *testing.T) {
			r, tables := newEngine(t, db)
			for _, k := range edgecase.Kinds {
				t.Run(k.Name, func(t *testing.T) {
					table := tables[k.Name]
					want := k.New(t)
					res := do(t, r, http.MethodPost, "/"+k.Name+"/"+url.PathEscape(want), "")
					if res.code != http.StatusCreated || res.body["id"] != want {
						t.Fatalf("path %s: %d %s", want, res.code, res.raw)
					}
					if got := stored(t, db, k, table); got != want {
						t.Fatalf("path: stored %q, want %q", got, want)
					}
					if _, err := db.Exec("DELETE FROM " + table); err != nil {
						t.Fatal(err)
					}

					res = do(t, r, http.MethodPost, "/"+k.Name, `{"id":`+jsonString(want)+`}`)
					if res.code != http.StatusCreated || res.body["id"] != want {
						t.Fatalf("JSON %s: %d %s", want, res.code, res.raw)
					}
					if got := stored(t, db, k, table); got != want {
						t.Fatalf("JSON: stored %q, want %q", got, want)
					}

					a, b := k.New(t), k.New(t)
					q := url.Values{"id": {want}, "ids": {a, b}, "after": {a}}
					res = do(t, r, http.MethodGet, "/"+k.Name+"?"+q.Encode(), "")
					if res.code != http.StatusOK || res.body["id"] != want || res.body["after"] != a ||
						fmt.Sprint(res.body["ids"]) != fmt.Sprint([]any{a, b}) {
						t.Fatalf("query %s: %d %s", q.Encode(), res.code, res.raw)
					}

					// An optional parameter sent empty, or not at all, is the zero ID.
					for _, target := range []string{"/" + k.Name + "?id=" + url.QueryEscape(want) + "&after=", "/" + k.Name + "?id=" + url.QueryEscape(want)} {
						res = do(t, r, http.MethodGet, target, "")
						if res.code != http.StatusOK || res.body["after_zero"] != true {
							t.Fatalf("%s: %d %s, want 200 with the zero ID", target, res.code, res.raw)
						}
					}
				})
			}
		})
	}
}

// TestGinRefuses: a wrong prefix, an invalid or negative ID, and empty text where an ID is
// required are a 400 naming the problem, from the path, the query (single and in an
// array) and a JSON body, and nothing is written.
func TestGinRefuses(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gin_bad") {
		t.Run(db.Name, func(t *testing.T) {
			r, tables := newEngine(t, db)
			for _, k := range edgecase.Kinds {
				t.Run(k.Name, func(t *testing.T) {
					good := k.New(t)
					type request struct{ name, method, target, body string }
					var reqs []request
					for _, bad := range k.Bad {
						reqs = append(reqs,
							request{bad.Name + " in the path", http.MethodPost, "/" + k.Name + "/" + url.PathEscape(bad.Text), ""},
							request{bad.Name + " in the query", http.MethodGet, "/" + k.Name + "?id=" + url.QueryEscape(bad.Text), ""},
							request{bad.Name + " in a query array", http.MethodGet, "/" + k.Name + "?" + url.Values{"id": {good}, "ids": {good, bad.Text}}.Encode(), ""},
							request{bad.Name + " in an optional query parameter", http.MethodGet, "/" + k.Name + "?" + url.Values{"id": {good}, "after": {bad.Text}}.Encode(), ""},
							request{bad.Name + " in a JSON body", http.MethodPost, "/" + k.Name, `{"id":` + jsonString(bad.Text) + `}`},
							request{bad.Name + " in a JSON array", http.MethodPost, "/" + k.Name, `{"id":` + jsonString(good) + `,"ids":[` + jsonString(bad.Text) + `]}`},
						)
					}
					reqs = append(reqs,
						request{"empty required query parameter", http.MethodGet, "/" + k.Name + "?id=", ""},
						request{"missing required query parameter", http.MethodGet, "/" + k.Name, ""},
						request{"empty required JSON field", http.MethodPost, "/" + k.Name, `{"id":""}`},
						request{"JSON number -1", http.MethodPost, "/" + k.Name, `{"id":-1}`},
					)
					for _, req := range reqs {
						res := do(t, r, req.method, req.target, req.body)
						if res.code != http.StatusBadRequest {
							t.Errorf("%s: %s %s %s: %d %s, want 400", req.name, req.method, req.target, req.body, res.code, res.raw)
							continue
						}
						if msg, _ := res.body["error"].(string); msg == "" {
							t.Errorf("%s: 400 without an error message: %s", req.name, res.raw)
						}
					}
					if n := db.Count(t, tables[k.Name]); n != 0 {
						t.Errorf("%d rows written from refused requests", n)
					}
				})
			}
		})
	}
}
