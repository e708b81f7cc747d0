package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
)

// defaultSQLiteFile returns the file of an sqlite store with no dsn: under the user's
// cache directory, or, without one (no HOME), under a directory of this user's own in
// the temporary directory, named for the user ID. The directory is made 0700, and one
// found there must be a directory (not a link) owned by this user with no access for
// others, or it is refused: a shared temporary directory lets anyone make it first.
// A new file is made 0600 before SQLite opens it.
func defaultSQLiteFile() (string, error) {
	dir, err := os.UserCacheDir()
	shared := err != nil
	if shared {
		dir = filepath.Join(os.TempDir(), "idgen-server-"+strconv.Itoa(os.Getuid()))
	}
	file := filepath.Join(dir, config.DefaultSQLiteFile)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	if shared {
		for _, d := range []string{dir, filepath.Dir(file)} {
			if err := privateDir(d); err != nil {
				return "", err
			}
		}
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	return file, f.Close()
}

// privateDir checks that dir is a directory, not a link, that no one but its owner may
// write or enter, owned by this user.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s: %v, want a directory of mode 0700", dir, fi.Mode())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s: owned by user %d, not this user (%d)", dir, st.Uid, os.Getuid())
	}
	return nil
}
