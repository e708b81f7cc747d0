package sqlstore

import (
	"github.com/idgen/idgen/runtime/internal/sqlbind"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Style returns d's placeholder style: $1 (PostgreSQL), ?1 (SQLite), ? (MySQL).
func Style(d sqldb.Dialect) sqlbind.Style {
	switch d {
	case sqldb.MySQL:
		return sqlbind.Positional
	case sqldb.SQLite:
		return sqlbind.Numbered
	}
	return sqlbind.Dollar
}

// Bind rewrites q, written with PostgreSQL's $1, $2, for d (see package sqlbind).
func Bind(d sqldb.Dialect, q string) sqlbind.Stmt { return sqlbind.Bind(q, Style(d)) }
