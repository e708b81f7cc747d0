package server

import (
	"strings"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
)

// TestStoreWhereRedacted: the description of a store that the "store opened" line logs
// holds its host, never its password, whatever form the DSN takes.
func TestStoreWhereRedacted(t *testing.T) {
	cases := []struct {
		name string
		typ  string
		dsn  string
		want string // in the description
	}{
		{"url", config.StorePostgres, "postgres://idgen:s3cret@db.example:5432/ids?sslmode=disable", "db.example"},
		{"postgresql url", config.StorePostgres, "postgresql://idgen:s3cret@db.example/ids", "db.example"},
		{"password with @", config.StorePostgres, "postgres://idgen:s3cret@x@db.example/ids", "db.example"},
		{"password with @ escaped", config.StorePostgres, "postgres://idgen:s3cret%40x@db.example/ids", "db.example"},
		{"query password", config.StorePostgres, "postgres://idgen@db.example/ids?password=s3cret&sslmode=disable", "db.example"},
		{"query password only", config.StorePostgres, "postgres:///ids?host=db.example&password=s3cret", "db.example"},
		{"key=value", config.StorePostgres, "host=db.example user=idgen password=s3cret dbname=ids", "db.example"},
		{"key=value quoted", config.StorePostgres, "host=db.example password='s3cret x' dbname=ids", "db.example"},
		{"key = value spaced", config.StorePostgres, "host = db.example password = s3cret", "db.example"},
		{"mysql", config.StoreMySQL, "idgen:s3cret@tcp(db.example:3306)/ids?parseTime=true", "db.example"},
		{"redis", config.StoreRedis, "redis://:s3cret@db.example:6379/0", "db.example"},
		{"redis user", config.StoreRedis, "redis://idgen:s3cret@db.example:6379/0", "db.example"},
		{"sqlite", config.StoreSQLite, t.TempDir() + "/idgen.db?_pragma=x(s3cret)", "idgen.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := openStore("db", config.Store{Type: c.typ, DSN: c.dsn})
			if err != nil {
				t.Fatal(err)
			}
			defer st.close()
			if strings.Contains(st.where, "s3cret") || !strings.Contains(st.where, c.want) {
				t.Fatalf("%s described as %q: want %q in it and no password", c.dsn, st.where, c.want)
			}
		})
	}
}

// TestStoreBadDSNRedacted: a PostgreSQL DSN that does not parse is refused at once,
// and the error does not quote its password.
func TestStoreBadDSNRedacted(t *testing.T) {
	for _, dsn := range []string{
		"postgres://idgen:s3cret@db.example:notaport/ids",
		"host=db.example password=s3cret port=notaport",
	} {
		st, err := openStore("db", config.Store{Type: config.StorePostgres, DSN: dsn})
		if err == nil {
			st.close()
			t.Fatalf("%s: opened", dsn)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("%s: error %q holds the password", dsn, err)
		}
	}
}
