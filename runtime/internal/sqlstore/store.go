package sqlstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/idgen/idgen/runtime/sqldb"
)

// ResolveTable is the start of every SQL store's constructor in lease, segment and idem: it
// checks d (sqldb.CheckDialect) and the table name (sqldb.CheckTable), table or def when table is
// empty, and returns the name. Errors start with pkg, the constructor's package.
func ResolveTable(pkg string, d sqldb.Dialect, table, def string) (string, error) {
	if table == "" {
		table = def
	}
	if err := sqldb.CheckDialect(d); err != nil {
		return "", fmt.Errorf("%s: %w", pkg, err)
	}
	if err := sqldb.CheckTable(table); err != nil {
		return "", fmt.Errorf("%s: %w", pkg, err)
	}
	return table, nil
}

// Created runs a store's schema (sqldb.CreateTables) until it has succeeded once, so that a
// store that creates its table before its first use does so once, however many
// goroutines reach it. The zero value is ready.
type Created struct {
	mu   sync.Mutex
	done bool
}

// Create runs stmts on db unless an earlier Create succeeded. Concurrent calls wait for
// each other. An error starts with pkg and names table.
func (c *Created) Create(ctx context.Context, db sqldb.Execer, pkg, table string, stmts []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return nil
	}
	if err := sqldb.CreateTables(ctx, db, stmts...); err != nil {
		return fmt.Errorf("%s: creating table %s: %w", pkg, table, err)
	}
	c.done = true
	return nil
}
