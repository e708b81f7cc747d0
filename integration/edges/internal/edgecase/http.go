package edgecase

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The HTTP contract a binder under test serves for every kind, under /kind:
//
//	POST /kind/{id}   binds the ID from the path, stores it in db.Table(t, kind), answers 201 {"id": ...}
//	POST /kind        the same from a JSON body {"id": ..., "ids": [...]}, "id" required
//	GET  /kind?id=&after=&ids=&ids=
//	                  answers 200 {"id", "after", "ids", "after_zero"}: id required, after
//	                  optional (the zero ID when empty or absent), ids an array
//
// and a request it cannot bind is a 400 with a body naming the problem.

type response struct {
	code int
	body map[string]any
	raw  string
}

func do(t *testing.T, h http.Handler, method, target, body string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	res := response{code: w.Code, raw: w.Body.String()}
	if err := json.Unmarshal(w.Body.Bytes(), &res.body); err != nil && w.Code != http.StatusBadRequest {
		t.Fatalf("%s %s: %d %q: %v", method, target, w.Code, w.Body.String(), err)
	}
	return res
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// CheckBinds proves on h (serving the contract above, storing in db) that a valid ID of
// every kind binds from the path, the query and a JSON body, is stored, read back with the
// type's Scan and answered as the same text; and that an optional query parameter sent
// empty or not at all is the zero ID.
func CheckBinds(t *testing.T, h http.Handler, db DB, tables map[string]string) {
	for _, k := range Kinds {
		t.Run(k.Name, func(t *testing.T) {
			table := tables[k.Name]
			want := k.New(t)
			res := do(t, h, http.MethodPost, "/"+k.Name+"/"+url.PathEscape(want), "")
			if res.code != http.StatusCreated || res.body["id"] != want {
				t.Fatalf("path %s: %d %s", want, res.code, res.raw)
			}
			if got := Stored(t, db, k, table); got != want {
				t.Fatalf("path: stored %q, want %q", got, want)
			}
			if _, err := db.Exec("DELETE FROM " + table); err != nil {
				t.Fatal(err)
			}

			res = do(t, h, http.MethodPost, "/"+k.Name, `{"id":`+jsonString(want)+`}`)
			if res.code != http.StatusCreated || res.body["id"] != want {
				t.Fatalf("JSON %s: %d %s", want, res.code, res.raw)
			}
			if got := Stored(t, db, k, table); got != want {
				t.Fatalf("JSON: stored %q, want %q", got, want)
			}
			if _, err := db.Exec("DELETE FROM " + table); err != nil {
				t.Fatal(err)
			}

			a, b := k.New(t), k.New(t)
			q := url.Values{"id": {want}, "ids": {a, b}, "after": {a}}
			res = do(t, h, http.MethodGet, "/"+k.Name+"?"+q.Encode(), "")
			if res.code != http.StatusOK || res.body["id"] != want || res.body["after"] != a ||
				fmt.Sprint(res.body["ids"]) != fmt.Sprint([]any{a, b}) {
				t.Fatalf("query %s: %d %s", q.Encode(), res.code, res.raw)
			}

			for _, target := range []string{
				"/" + k.Name + "?id=" + url.QueryEscape(want) + "&after=",
				"/" + k.Name + "?id=" + url.QueryEscape(want),
			} {
				res = do(t, h, http.MethodGet, target, "")
				if res.code != http.StatusOK || res.body["after_zero"] != true {
					t.Fatalf("%s: %d %s, want 200 with the zero ID", target, res.code, res.raw)
				}
			}
		})
	}
}

// CheckRefuses proves on h that a wrong prefix, an invalid or negative ID, and empty text
// where an ID is required are a 400 with a message (naming the ID's type, or the
// `required` rule the zero ID broke), from the path, the query (single, in
// an array, and in an optional parameter) and a JSON body (single and in an array), and
// that nothing is written.
func CheckRefuses(t *testing.T, h http.Handler, db DB, tables map[string]string) {
	for _, k := range Kinds {
		t.Run(k.Name, func(t *testing.T) {
			good := k.New(t)
			type request struct{ name, method, target, body, want string }
			var reqs []request
			for _, bad := range k.Bad {
				reqs = append(reqs,
					request{bad.Name + " in the path", http.MethodPost, "/" + k.Name + "/" + url.PathEscape(bad.Text), "", k.Type},
					request{bad.Name + " in the query", http.MethodGet, "/" + k.Name + "?id=" + url.QueryEscape(bad.Text), "", k.Type},
					request{bad.Name + " in a query array", http.MethodGet, "/" + k.Name + "?" + url.Values{"id": {good}, "ids": {good, bad.Text}}.Encode(), "", k.Type},
					request{bad.Name + " in an optional query parameter", http.MethodGet, "/" + k.Name + "?" + url.Values{"id": {good}, "after": {bad.Text}}.Encode(), "", k.Type},
					request{bad.Name + " in a JSON body", http.MethodPost, "/" + k.Name, `{"id":` + jsonString(bad.Text) + `}`, k.Type},
					request{bad.Name + " in a JSON array", http.MethodPost, "/" + k.Name, `{"id":` + jsonString(good) + `,"ids":[` + jsonString(bad.Text) + `]}`, k.Type},
				)
			}
			reqs = append(reqs,
				request{"empty required query parameter", http.MethodGet, "/" + k.Name + "?id=", "", "required"},
				request{"missing required query parameter", http.MethodGet, "/" + k.Name, "", "required"},
				request{"empty required JSON field", http.MethodPost, "/" + k.Name, `{"id":""}`, "required"},
				request{"JSON number -1", http.MethodPost, "/" + k.Name, `{"id":-1}`, ""},
			)
			for _, req := range reqs {
				res := do(t, h, req.method, req.target, req.body)
				if res.code != http.StatusBadRequest {
					t.Errorf("%s: %s %s %s: %d %s, want 400", req.name, req.method, req.target, req.body, res.code, res.raw)
					continue
				}
				if strings.TrimSpace(res.raw) == "" || !strings.Contains(res.raw, req.want) {
					t.Errorf("%s: 400 %q, want a message naming %q", req.name, res.raw, req.want)
				}
			}
			if n := db.Count(t, tables[k.Name]); n != 0 {
				t.Errorf("%d rows written from refused requests", n)
			}
		})
	}
}

// Tables makes a table for every kind in db, by kind name.
func Tables(t testing.TB, db DB) map[string]string {
	t.Helper()
	tables := map[string]string{}
	for _, k := range Kinds {
		tables[k.Name] = db.Table(t, k)
	}
	return tables
}
