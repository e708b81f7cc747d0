package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
)

// TestSQLiteDefaultFilePrivate: with no HOME (no cache directory), an sqlite store
// without a dsn keeps its file in a directory of its own under the temporary directory,
// mode 0700, the file 0600; a directory of that name that another could write to is
// refused, not used.
func TestSQLiteDefaultFilePrivate(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o1777); err != nil { // as /tmp is
		t.Fatal(err)
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", tmp)
	st, err := openStore("local", config.Store{Type: config.StoreSQLite})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.Ping(); err != nil {
		t.Fatal(err)
	}
	st.close()
	dir := filepath.Dir(st.where)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || dir == tmp {
		t.Fatalf("the file's directory %s: %v %v, want a directory of its own, mode 0700", dir, fi.Mode(), err)
	}
	if fi, err := os.Stat(st.where); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file %s: %v %v, want mode 0600", st.where, fi.Mode(), err)
	}
	// Someone made the directory first, open to all: refused.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if st, err := openStore("local", config.Store{Type: config.StoreSQLite}); err == nil {
		st.close()
		t.Fatalf("a directory of mode 0777 was used")
	}
}
