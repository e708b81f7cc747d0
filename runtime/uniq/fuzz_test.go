package uniq

import (
	"strings"
	"testing"
)

func FuzzParsePostgresDetail(f *testing.F) {
	for _, tc := range postgresDetails {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, detail string) {
		for _, c := range parsePostgresDetail(detail) {
			if c == "" {
				t.Fatalf("parsePostgresDetail(%q) gave an empty column", detail)
			}
		}
	})
}

func FuzzParseMySQLKey(f *testing.F) {
	for _, tc := range mysqlMessages {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		table, key := parseMySQLKey(msg)
		if table != "" && key == "" {
			t.Fatalf("parseMySQLKey(%q) = table %q without a key", msg, table)
		}
		if key != "" && !strings.Contains(msg, key) {
			t.Fatalf("parseMySQLKey(%q) = key %q not in the message", msg, key)
		}
	})
}

func FuzzParseSQLiteMessage(f *testing.F) {
	for _, tc := range sqliteMessages {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		table, cols, index := parseSQLiteMessage(msg)
		if (table == "") != (len(cols) == 0) {
			t.Fatalf("parseSQLiteMessage(%q) = table %q, columns %q", msg, table, cols)
		}
		if index != "" && table != "" {
			t.Fatalf("parseSQLiteMessage(%q) = both index %q and table %q", msg, index, table)
		}
	})
}
