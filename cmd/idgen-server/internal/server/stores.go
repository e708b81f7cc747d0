package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/plugins/etcdlease"
	"github.com/idgen/idgen/plugins/redis/redislease"
	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// store is an open connection to one configured store.
type store struct {
	name string
	cfg  config.Store
	db   *sql.DB
	rdb  redis.UniversalClient
	etcd *clientv3.Client
	// Where is a description for logs: the file, host or endpoints, never a password.
	where string
}

// openStore connects to s; nothing is sent to the store yet (except etcd's dial, which
// is asynchronous).
func openStore(name string, s config.Store) (*store, error) {
	st := &store{name: name, cfg: s}
	var err error
	switch s.Type {
	case config.StoreSQLite:
		file := s.DSN
		if file == "" {
			if file, err = defaultSQLiteFile(); err != nil {
				return nil, fmt.Errorf("server: store %q: %w", name, err)
			}
		}
		st.where = describeSQLite(file)
		dsn := file
		if !strings.Contains(dsn, "_pragma") {
			sep := "?"
			if strings.Contains(dsn, "?") {
				sep = "&"
			}
			dsn += sep + "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
		}
		st.db, err = sql.Open("sqlite", dsn)
	case config.StorePostgres:
		if st.where, err = describePostgres(s.DSN); err == nil {
			st.db, err = sql.Open("pgx", s.DSN)
		}
	case config.StoreMySQL:
		st.where = describeMySQL(s.DSN)
		st.db, err = sql.Open("mysql", s.DSN)
	case config.StoreRedis:
		var opt *redis.Options
		opt, err = redis.ParseURL(s.DSN)
		if err == nil {
			st.where = opt.Addr
			st.rdb = redis.NewClient(opt)
		}
	case config.StoreEtcd:
		st.where = strings.Join(s.Endpoints, ",")
		st.etcd, err = clientv3.New(clientv3.Config{
			Endpoints:   s.Endpoints,
			DialTimeout: 2 * time.Second,
			Logger:      zap.NewNop(),
		})
	}
	if err != nil {
		return nil, fmt.Errorf("server: store %q (%s): %w", name, s.Type, err)
	}
	return st, nil
}

func (s *store) dialect() sqldb.Dialect {
	switch s.cfg.Type {
	case config.StorePostgres:
		return sqldb.Postgres
	case config.StoreMySQL:
		return sqldb.MySQL
	}
	return sqldb.SQLite
}

// leaseBackend returns the lease backend on s.
func (s *store) leaseBackend(ctx context.Context) (lease.Backend, error) {
	switch {
	case s.db != nil:
		return lease.NewSQL(s.db, s.dialect(), lease.SQLOptions{Table: s.cfg.LeaseTable})
	case s.rdb != nil:
		return redislease.New(ctx, s.rdb, redislease.Options{Prefix: s.cfg.Prefix, AllowNoPersistence: s.cfg.AllowNoPersistence})
	case s.etcd != nil:
		return etcdlease.New(s.etcd, etcdlease.Options{Prefix: s.cfg.Prefix})
	}
	return nil, fmt.Errorf("server: store %q cannot hold leases", s.name)
}

// registry returns the Store of the servers' records on s, beside its leases: the
// server table on SQL (config.Store.ServerTableName), keys under the prefix on Redis
// and etcd. On SQL it creates the table when missing.
func (s *store) registry(ctx context.Context) (registry.Store, error) {
	switch {
	case s.db != nil:
		return registry.NewSQL(ctx, s.db, s.dialect(), registry.SQLOptions{Table: s.cfg.ServerTableName()})
	case s.rdb != nil:
		return registry.NewRedis(s.rdb, s.cfg.Prefix), nil
	case s.etcd != nil:
		return registry.NewEtcd(s.etcd, s.cfg.Prefix), nil
	}
	return nil, fmt.Errorf("server: store %q cannot hold the servers' records", s.name)
}

// peerStore returns the segment store on a peer's table in s: Leaf's or tinyid's.
func (s *store) peerStore(schema, table string) (segment.Store, error) {
	if s.db == nil {
		return nil, fmt.Errorf("server: store %q is not an SQL store: %s's table needs postgres or mysql", s.name, schema)
	}
	if schema == config.SchemaLeaf {
		return segment.NewLeaf(s.db, s.dialect(), segment.PeerOptions{Table: table})
	}
	return segment.NewTinyid(s.db, s.dialect(), segment.PeerOptions{Table: table})
}

// segmentStore returns the segment store on s.
func (s *store) segmentStore(ctx context.Context) (segment.Store, error) {
	switch {
	case s.db != nil:
		return segment.NewSQL(s.db, s.dialect(), segment.SQLOptions{Table: s.cfg.SegmentTable})
	case s.rdb != nil:
		return redissegment.New(ctx, s.rdb, redissegment.Options{Prefix: s.cfg.Prefix, AllowNoPersistence: s.cfg.AllowNoPersistence})
	}
	return nil, fmt.Errorf("server: store %q cannot hold segments", s.name)
}

func (s *store) close() error {
	switch {
	case s.db != nil:
		return s.db.Close()
	case s.rdb != nil:
		return s.rdb.Close()
	case s.etcd != nil:
		return s.etcd.Close()
	}
	return nil
}
