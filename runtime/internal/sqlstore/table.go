package sqlstore

import (
	"strings"

	"github.com/idgen/idgen/runtime/sqldb"
)

// HostileTables returns table names CheckTable must refuse, for the tests of every package
// that takes a table name: injections, quoting, too many parts, too long, non-ASCII.
func HostileTables() []string {
	return []string{
		"",
		"t (x int); DROP TABLE victim; CREATE TABLE t2",
		"idgen_lease; DROP TABLE x",
		"t;",
		"t --",
		"t/*c*/",
		"t' OR '1'='1",
		`"t"`,
		"`t`",
		"[t]",
		"t x",
		"t\x00",
		"t\n",
		"a-b",
		"a.b.c",
		"a..b",
		".t",
		"t.",
		"1t",
		"app.1t",
		"$1",
		"t?",
		"é",
		"tа", // Cyrillic a
		strings.Repeat("a", sqldb.MaxTablePart+1),
		"app." + strings.Repeat("b", sqldb.MaxTablePart+1),
		strings.Repeat("a", 200),
	}
}

// GoodTables returns table names CheckTable accepts, for the same tests.
func GoodTables() []string {
	return []string{
		"idgen_lease",
		"t",
		"_t",
		"T2",
		"app.idgen_segment",
		"App_1.T_2",
		strings.Repeat("a", sqldb.MaxTablePart),
		strings.Repeat("s", sqldb.MaxTablePart) + "." + strings.Repeat("t", sqldb.MaxTablePart),
	}
}
