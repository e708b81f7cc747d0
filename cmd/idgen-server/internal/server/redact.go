package server

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// The descriptions of stores for logs: each DSN is parsed by its own driver's parser and
// described from the parsed fields (user, host, port, database), so no form of DSN
// (URL, key=value, a password in the query, a password holding '@') can carry a
// password into a log line.

// describePostgres describes a PostgreSQL DSN, or refuses one pgx cannot parse (with
// pgx's error, which does not quote the DSN's password).
func describePostgres(dsn string) (string, error) {
	c, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("postgres://")
	if c.User != "" {
		b.WriteString(c.User + "@")
	}
	if strings.HasPrefix(c.Host, "/") {
		b.WriteString("[" + c.Host + "]") // a Unix socket's directory
	} else {
		b.WriteString(net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))))
	}
	b.WriteString("/" + c.Database)
	return b.String(), nil
}

// describeMySQL describes a MySQL DSN as user@address/database.
func describeMySQL(dsn string) string {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "mysql (DSN not parsed)"
	}
	return fmt.Sprintf("mysql://%s@%s(%s)/%s", c.User, c.Net, c.Addr, c.DBName)
}

// describeSQLite describes an SQLite DSN as its file, without its parameters.
func describeSQLite(dsn string) string {
	file, _, _ := strings.Cut(dsn, "?")
	return file
}
