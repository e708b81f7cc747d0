package tags

import "maps"

// Table is a set of tags by name, in the order they were added. It is never changed:
// With makes a new one (copy on write), so a reader holding a *Table sees one
// consistent set, read with one atomic load of the pointer. The zero Table is empty.
type Table struct {
	byName map[string]*Tag
	order  []*Tag
}

// With returns a table of t's tags and then add.
func (t *Table) With(add ...*Tag) *Table {
	n := &Table{byName: make(map[string]*Tag, len(t.byName)+len(add)), order: append(t.order[:len(t.order):len(t.order)], add...)}
	maps.Copy(n.byName, t.byName)
	for _, a := range add {
		n.byName[a.name] = a
	}
	return n
}

// Named returns the tag named name, if the table has it.
func (t *Table) Named(name string) (*Tag, bool) {
	tg, ok := t.byName[name]
	return tg, ok
}

// List returns the table's tags in the order they were added. The caller must not
// change the slice.
func (t *Table) List() []*Tag { return t.order }
