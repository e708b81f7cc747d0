// Package sqlbind writes one SQL statement for the three placeholder styles of the
// databases idgen talks to: statements are written with PostgreSQL's $1, $2 and rewritten
// for SQLite (?1, ?2) and MySQL (positional ?, with the arguments reordered to match).
package sqlbind

import (
	"strconv"
	"strings"
)

// Style is a database's placeholder style.
type Style uint8

const (
	// Dollar is PostgreSQL's $1, $2: the statement is left as written.
	Dollar Style = iota
	// Numbered is SQLite's ?1, ?2.
	Numbered
	// Positional is MySQL's ?, one per use, in order.
	Positional
)

// Stmt is a statement in one style: its text, and for Positional the index of the
// argument each placeholder takes.
type Stmt struct {
	Query string
	order []int
}

// Bind rewrites the $N placeholders of q for style.
func Bind(q string, style Style) Stmt {
	if style == Dollar {
		return Stmt{Query: q}
	}
	var b strings.Builder
	var order []int
	if style == Positional {
		order = []int{}
	}
	for i := 0; i < len(q); i++ {
		if q[i] != '$' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && '0' <= q[j] && q[j] <= '9' {
			j++
		}
		if style == Positional {
			n, _ := strconv.Atoi(q[i+1 : j])
			b.WriteByte('?')
			order = append(order, n-1)
		} else {
			b.WriteString("?" + q[i+1:j])
		}
		i = j - 1
	}
	return Stmt{Query: b.String(), order: order}
}

// Args returns the arguments, given in $N order, in the order the statement takes them.
func (s Stmt) Args(a ...any) []any {
	if s.order == nil {
		return a
	}
	out := make([]any, len(s.order))
	for i, k := range s.order {
		out[i] = a[k]
	}
	return out
}
