// Package echobind_test binds every kind of generated ID with echo's default binder, from
// the path, the query and a JSON body, with go-playground/validator checking `required`,
// storing what binds on SQLite and PostgreSQL.
package echobind_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"

	"github.com/idgen/idgen/integration/edges/ids"
	"github.com/idgen/idgen/integration/edges/internal/edgecase"
)

// id is what a generated type's pointer implements: the reader and the text form.
type id[T any] interface {
	*T
	sql.Scanner
	fmt.Stringer
}

type pathParams[T any] struct {
	ID T `param:"id" validate:"required"`
}

type queryParams[T any] struct {
	ID    T   `query:"id" validate:"required"`
	After T   `query:"after"` // optional: empty or absent is the zero ID
	IDs   []T `query:"ids"`
}

type body[T any] struct {
	ID  T   `json:"id" validate:"required"`
	IDs []T `json:"ids"`
}

// validate is echo's Validator: go-playground/validator, its errors a 400.
type validate struct{ v *validator.Validate }

func (v validate) Validate(i any) error {
	if err := v.v.Struct(i); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	return nil
}

// bind is what a handler does: echo's Bind (its errors are already a 400), then Validate.
func bind(c echo.Context, v any) error {
	if err := c.Bind(v); err != nil {
		return err
	}
	return c.Validate(v)
}

// routes serves one kind under /kind, as edgecase's HTTP contract says.
func routes[T any, P id[T]](e *echo.Echo, kind string, db edgecase.DB, table string) {
	store := func(c echo.Context, v T) error {
		if _, err := db.Exec("INSERT INTO "+table+" (id) VALUES ($1)", v); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, map[string]any{"id": v})
	}
	e.POST("/"+kind+"/:id", func(c echo.Context) error {
		var p pathParams[T]
		if err := bind(c, &p); err != nil {
			return err
		}
		return store(c, p.ID)
	})
	e.POST("/"+kind, func(c echo.Context) error {
		var b body[T]
		if err := bind(c, &b); err != nil {
			return err
		}
		return store(c, b.ID)
	})
	e.GET("/"+kind, func(c echo.Context) error {
		var q queryParams[T]
		if err := bind(c, &q); err != nil {
			return err
		}
		ids := make([]string, len(q.IDs))
		for i := range q.IDs {
			ids[i] = P(&q.IDs[i]).String()
		}
		return c.JSON(http.StatusOK, map[string]any{
			"id": P(&q.ID).String(), "after": P(&q.After).String(), "ids": ids,
			"after_zero": P(&q.After).String() == P(new(T)).String(),
		})
	})
}

func newEcho(t *testing.T, db edgecase.DB) (*echo.Echo, map[string]string) {
	e := echo.New()
	e.Validator = validate{validator.New()}
	tables := edgecase.Tables(t, db)
	routes[ids.UserID](e, "snowflake", db, tables["snowflake"])
	routes[ids.AccountID](e, "prefixed", db, tables["prefixed"])
	routes[ids.OrderNo](e, "number", db, tables["number"])
	routes[ids.TraceID](e, "uuid7", db, tables["uuid7"])
	routes[ids.InvoiceID](e, "typeid", db, tables["typeid"])
	routes[ids.DocumentID](e, "objectid", db, tables["objectid"])
	return e, tables
}

// TestEchoBinds: a valid ID of every kind binds with echo's Bind from the path, the query
// (single, optional, array) and a JSON body, is stored on SQLite and PostgreSQL, read back
// and answered as the same text (edgecase.CheckBinds).
func TestEchoBinds(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_echo_ok") {
		t.Run(db.Name, func(t *testing.T) {
			e, tables := newEcho(t, db)
			edgecase.CheckBinds(t, e, db, tables)
		})
	}
}

// TestEchoRefuses: a wrong prefix, an invalid or negative ID and empty text where one is
// required (validator's `required`) are a 400, and nothing is written
// (edgecase.CheckRefuses).
func TestEchoRefuses(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_echo_bad") {
		t.Run(db.Name, func(t *testing.T) {
			e, tables := newEcho(t, db)
			edgecase.CheckRefuses(t, e, db, tables)
		})
	}
}
