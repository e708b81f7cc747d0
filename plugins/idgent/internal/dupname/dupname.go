// Package dupname names the unique index of a SQLite duplicate, which SQLite's message
// leaves out (it names the table and columns only): the Duplicates hook and the generated
// CreateOrGet ask the database which unique index is on exactly those columns.
package dupname

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/uniq"
)

// Querier runs a query on the connection (or transaction) the failed statement ran on,
// as ent's generated config and txDriver do with the sql/execquery feature.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// indexes lists the unique indexes of a table with their key columns, in index order;
// pragma_index_info gives an expression no name.
const indexes = `SELECT il.name, COALESCE(ii.name, '') FROM pragma_index_list(?) il, pragma_index_info(il.name) ii
WHERE il."unique" ORDER BY il.name, ii.seqno`

// Wrap is uniq.Wrap that also names the unique index of a SQLite duplicate through q: the
// one on exactly the violation's columns. When q is nil, the lookup fails or no such index
// exists (a primary key that is the rowid has none), the constraint stays unnamed.
func Wrap(ctx context.Context, q Querier, err error) error {
	err = uniq.Wrap(err)
	var dup *uniq.DuplicateError
	if !errors.As(err, &dup) || q == nil || dup.Driver != sqldb.SQLite || dup.Constraint != "" || dup.Table == "" || len(dup.Columns) == 0 {
		return err
	}
	if name := lookup(ctx, q, dup.Table, dup.Columns); name != "" {
		dup.Constraint = name
	}
	return err
}

// lookup returns the name of the unique index of table on exactly columns, or "".
func lookup(ctx context.Context, q Querier, table string, columns []string) string {
	rows, err := q.QueryContext(ctx, indexes, table)
	if err != nil {
		return ""
	}
	defer rows.Close()
	on := map[string][]string{}
	var order []string
	for rows.Next() {
		var name, column string
		if err := rows.Scan(&name, &column); err != nil {
			return ""
		}
		if _, seen := on[name]; !seen {
			order = append(order, name)
		}
		on[name] = append(on[name], column)
	}
	if rows.Err() != nil {
		return ""
	}
	want := folded(columns)
	for _, name := range order {
		if slices.Equal(folded(on[name]), want) {
			return name
		}
	}
	return ""
}

// folded returns names lowercased (SQLite's identifiers are case-insensitive) and sorted.
func folded(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToLower(n)
	}
	slices.Sort(out)
	return out
}
