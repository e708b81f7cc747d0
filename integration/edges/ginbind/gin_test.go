// Package ginbind_test binds every kind of generated ID with gin: from the path
// (ShouldBindUri), the query (ShouldBindQuery, with an optional parameter and an array)
// and a JSON body (ShouldBindJSON), storing what binds on SQLite and PostgreSQL.
package ginbind_test

import (
	"database/sql"
	"fmt"
	"net/http"
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
	tables := edgecase.Tables(t, db)
	routes[ids.UserID](r, "snowflake", db, tables["snowflake"])
	routes[ids.AccountID](r, "prefixed", db, tables["prefixed"])
	routes[ids.OrderNo](r, "number", db, tables["number"])
	routes[ids.TraceID](r, "uuid7", db, tables["uuid7"])
	routes[ids.InvoiceID](r, "typeid", db, tables["typeid"])
	routes[ids.DocumentID](r, "objectid", db, tables["objectid"])
	return r, tables
}

// TestGinBinds: a valid ID of every kind binds with ShouldBindUri, ShouldBindQuery (single,
// optional, array) and ShouldBindJSON, is stored on SQLite and PostgreSQL, read back and
// answered as the same text (edgecase.CheckBinds).
func TestGinBinds(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gin_ok") {
		t.Run(db.Name, func(t *testing.T) {
			r, tables := newEngine(t, db)
			edgecase.CheckBinds(t, r, db, tables)
		})
	}
}

// TestGinRefuses: a wrong prefix, an invalid or negative ID and empty text where one is
// required are a 400 from each binder, and nothing is written (edgecase.CheckRefuses).
func TestGinRefuses(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_gin_bad") {
		t.Run(db.Name, func(t *testing.T) {
			r, tables := newEngine(t, db)
			edgecase.CheckRefuses(t, r, db, tables)
		})
	}
}
