package uniq

import (
	"strings"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/sqldb"
)

// MySQL and MariaDB error numbers of a unique-key violation.
const (
	erDupEntry            = 1062 // ER_DUP_ENTRY
	erDupEntryWithKeyName = 1586 // ER_DUP_ENTRY_WITH_KEY_NAME
)

// detectMySQL recognises go-sql-driver/mysql's *mysql.MySQLError, without importing the
// driver. The SQLSTATE (23000) is shared by every integrity violation, so only the error
// number tells.
func detectMySQL(err error) *Violation {
	n, msg, ok := sqlerr.MySQLError(err)
	if !ok || n != erDupEntry && n != erDupEntryWithKeyName {
		return nil
	}
	v := &Violation{Driver: sqldb.MySQL}
	v.Table, v.Constraint = parseMySQLKey(msg)
	v.PrimaryKey = v.Constraint == "PRIMARY"
	return v
}

// parseMySQLKey returns the key named by a duplicate-entry message in its English shape,
// `Duplicate entry 'x' for key 'name'`, and "" for any other text (MariaDB translates it
// under lc_messages). MySQL 8 writes the key as 'table.name', split into table and key;
// MariaDB names only the key.
func parseMySQLKey(msg string) (table, key string) {
	const prefix, sep = "Duplicate entry '", "' for key '"
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, "'") {
		return "", ""
	}
	// The entry may itself contain the separator; the key is after its last occurrence.
	i := strings.LastIndex(msg, sep)
	if i < len(prefix)-1 || i+len(sep) >= len(msg)-1 {
		return "", ""
	}
	key = msg[i+len(sep) : len(msg)-1]
	if j := strings.LastIndexByte(key, '.'); j > 0 && j < len(key)-1 {
		return key[:j], key[j+1:]
	}
	return "", key
}
