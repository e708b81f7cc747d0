package sqlbind

import (
	"reflect"
	"testing"
)

func TestBind(t *testing.T) {
	const q = `UPDATE t SET a = $2, b = $1 WHERE c = $2 AND d = $10`
	args := []any{"one", "two", 3, 4, 5, 6, 7, 8, 9, "ten"}
	for _, tc := range []struct {
		style Style
		query string
		args  []any
	}{
		{Dollar, q, args},
		{Numbered, `UPDATE t SET a = ?2, b = ?1 WHERE c = ?2 AND d = ?10`, args},
		{Positional, `UPDATE t SET a = ?, b = ? WHERE c = ? AND d = ?`, []any{"two", "one", "two", "ten"}},
	} {
		st := Bind(q, tc.style)
		if st.Query != tc.query || !reflect.DeepEqual(st.Args(args...), tc.args) {
			t.Errorf("style %d: %q %v", tc.style, st.Query, st.Args(args...))
		}
	}
	// A positional statement without placeholders takes no arguments.
	if got := Bind("SELECT 1", Positional).Args("x"); len(got) != 0 {
		t.Errorf("args %v", got)
	}
}
