package sqltable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/cmd/idgen-server/internal/sqltable"
)

// TestCheck: table names are spliced into SQL, so only plain names pass.
func TestCheck(t *testing.T) {
	for _, good := range []string{"idgen_servers", "app.idgen_servers", "_t", "T2", strings.Repeat("a", 63)} {
		if err := sqltable.Check(good); err != nil {
			t.Errorf("Check(%q): %v", good, err)
		}
	}
	for _, bad := range []string{"", "t; DROP TABLE x", "a.b.c", "1t", "t x", `"t"`, "a-b", "tа", strings.Repeat("a", 64), "a.", ".a"} {
		if err := sqltable.Check(bad); !errors.Is(err, sqltable.ErrInvalid) {
			t.Errorf("Check(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

type pgErr string

func (e pgErr) Error() string    { return "pg " + string(e) }
func (e pgErr) SQLState() string { return string(e) }

type liteErr int

func (e liteErr) Error() string { return "sqlite" }
func (e liteErr) Code() int     { return int(e) }

// TestRace: the errors of a CREATE racing another are told from the others, wrapped or
// not. (The races themselves are run on each database by the registry's and the change
// log's concurrent-creation tests.)
func TestRace(t *testing.T) {
	for _, err := range []error{pgErr("23505"), pgErr("42P07"), pgErr("40P01"), &mysql.MySQLError{Number: 1050}, &mysql.MySQLError{Number: 1213}, liteErr(5), liteErr(6 | 2<<8), errors.Join(errors.New("x"), pgErr("42710"))} {
		if !sqltable.Race(err) {
			t.Errorf("Race(%v) = false", err)
		}
	}
	for _, err := range []error{pgErr("42601"), &mysql.MySQLError{Number: 1064}, liteErr(1), errors.New("connection refused")} {
		if sqltable.Race(err) {
			t.Errorf("Race(%v) = true", err)
		}
	}
}
