package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/runtime/snowflake"
)

// runCheck reads a running system (the highest ID it issued, its layout and worker
// range, the rows of Leaf's or tinyid's table) and prints the configuration that
// continues it; with -config it checks that configuration instead and refuses one that
// would go backwards or overlap the old fleet's worker IDs.
func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("idgen-server check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFile := fs.String("config", "", "idgen-server configuration `file` to check against the old system (default: print one that continues it)")
	layoutName := fs.String("layout", "", "the old system's snowflake layout: a preset ("+strings.Join(snowflake.PresetNames(), ", ")+") or fields (epoch=...,unit=...,bits=...)")
	floor := fs.Int64("floor", 0, "the highest ID the old system issued")
	dsn := fs.String("dsn", "", "the old system's database (postgres://..., user:pass@tcp(host)/db for mysql, or an sqlite file)")
	driver := fs.String("driver", "", "postgres, mysql or sqlite: the database of -dsn (default from its form)")
	leaseDSN := fs.String("lease-dsn", "", "the database idgen-server leases snowflake worker IDs from, in -dsn's forms (default -dsn): the printed configuration's store idgen")
	query := fs.String("floor-query", "", "a SELECT on -dsn returning the highest ID issued (SELECT max(id) FROM orders)")
	workers := fs.String("workers", "", "the worker IDs the old fleet uses, `min-max` (0-511): idgen's lease must keep off them")
	leafTable := fs.String("leaf-table", "", "Leaf's segment table on -dsn (leaf_alloc): its tags are continued on the same rows")
	tinyidTable := fs.String("tinyid-table", "", "tinyid's table on -dsn (tiny_id_info): its tags are continued on the same rows")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: idgen-server check [-config idgen.yaml] [-layout leaf] [-floor N | -dsn DSN -floor-query SQL] [-workers 0-511] [-lease-dsn DSN] [-leaf-table leaf_alloc | -tinyid-table tiny_id_info]\n\n"+
			"Reads the system idgen-server takes over from and prints the configuration that continues it\n(a layout whose IDs stay above the old ones, a worker range beside the old fleet's, segment\ntags on the old rows); with -config, checks that file instead and exits 1 if it would go\nbackwards or overlap.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var db *sql.DB
	dialect := ""
	if *dsn != "" {
		var err error
		dialect, db, err = openDSN(*driver, *dsn)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		defer db.Close()
	}
	if *query != "" {
		if db == nil {
			return &FlagError{Flag: "-dsn", Reason: "-floor-query runs on the old system's database"}
		}
		var v sql.NullInt64
		if err := db.QueryRowContext(ctx, *query).Scan(&v); err != nil {
			return fmt.Errorf("check: %s: %w", *query, err)
		}
		*floor = max(*floor, v.Int64)
	}
	var peerMin, peerMax int64 = -1, -1
	if *workers != "" {
		lo, hi, ok := strings.Cut(*workers, "-")
		a, err1 := strconv.ParseInt(lo, 10, 64)
		b, err2 := strconv.ParseInt(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || a < 0 || b < a {
			return fmt.Errorf("check: -workers %q: want min-max, as 0-511", *workers)
		}
		peerMin, peerMax = a, b
	}
	type peerTag struct {
		schema, table, tag string
		next               int64 // the next ID the old service hands out
	}
	var tags []peerTag
	for _, p := range []struct{ schema, table, q string }{
		{config.SchemaLeaf, *leafTable, "SELECT biz_tag, max_id FROM %s ORDER BY biz_tag"},
		{config.SchemaTinyid, *tinyidTable, "SELECT biz_type, max_id + 1 FROM %s ORDER BY biz_type"},
	} {
		if p.table == "" {
			continue
		}
		if db == nil {
			return &FlagError{Flag: "-dsn", Reason: fmt.Sprintf("-%s-table is read from the old system's database", p.schema)}
		}
		rows, err := db.QueryContext(ctx, fmt.Sprintf(p.q, p.table))
		if err != nil {
			return fmt.Errorf("check: reading %s's table %s: %w", p.schema, p.table, err)
		}
		for rows.Next() {
			t := peerTag{schema: p.schema, table: p.table}
			if err := rows.Scan(&t.tag, &t.next); err != nil {
				rows.Close()
				return fmt.Errorf("check: reading %s: %w", p.table, err)
			}
			tags = append(tags, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("check: reading %s: %w", p.table, err)
		}
	}

	now := time.Now()
	if *cfgFile != "" {
		data, err := os.ReadFile(*cfgFile)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		cfg, err := config.Parse(*cfgFile, data)
		if err != nil {
			return err
		}
		var problems []string
		if sf := cfg.Snowflake; sf != nil {
			l := sf.Parsed
			if err := snowflake.CheckFloor(l, snowflake.ID(*floor), now); err != nil {
				problems = append(problems, "snowflake.layout: "+err.Error())
			}
			lo, hi := sf.Lease.MinWorker, sf.Lease.MaxWorker
			if hi == 0 {
				hi = l.MaxWorker()
			}
			if w := sf.Lease.Worker; w != nil {
				lo, hi = *w, *w
			}
			if peerMin >= 0 && lo <= peerMax && peerMin <= hi {
				fix := fmt.Sprintf("set snowflake.lease.min_worker: %d", peerMax+1)
				if peerMin > 0 {
					fix += fmt.Sprintf(" or max_worker: %d", peerMin-1)
				}
				problems = append(problems, fmt.Sprintf("snowflake.lease: worker IDs [%d, %d] overlap the old fleet's [%d, %d]: %s", lo, hi, peerMin, peerMax, fix))
			}
		}
		for _, pt := range tags {
			i := indexTag(cfg, pt.tag)
			switch {
			case i < 0:
			case cfg.Tags[i].Kind != config.KindSegment || cfg.Tags[i].Schema != pt.schema:
				problems = append(problems, fmt.Sprintf("tags[%d] %q: %s's table %s hands out this tag from %d on; a %s tag on another table would repeat its IDs: set kind: segment, schema: %s",
					i, pt.tag, pt.schema, pt.table, pt.next, cfg.Tags[i].Kind, pt.schema))
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("check: %s does not continue the old system:\n  %s", *cfgFile, strings.Join(problems, "\n  "))
		}
		fmt.Fprintf(stdout, "%s continues the old system: IDs above %d, worker IDs apart\n", *cfgFile, *floor)
		return nil
	}

	// Print the configuration that continues the old system: a whole file, with every
	// store it names defined and a tag for each part it continues.
	snowflakePart := *layoutName != "" || *floor > 0 || peerMin >= 0
	if !snowflakePart && len(tags) == 0 {
		return &FlagError{Flag: "-layout, -floor, -floor-query, -workers, -leaf-table or -tinyid-table",
			Reason: "nothing of the old system to continue: name its snowflake layout, the highest ID it issued, its fleet's worker IDs or its segment table"}
	}
	var b strings.Builder
	b.WriteString("# Continues the old system: idgen-server's configuration (check -config checks it).\n")
	b.WriteString("listen: 127.0.0.1:7070  # loopback: add tokens before serving other hosts\n")
	leaseStore := ""
	if snowflakePart {
		switch {
		case *leaseDSN != "" && *leaseDSN != *dsn:
			leaseStore = "idgen"
		case *dsn != "":
			leaseStore = "old"
		default:
			return &FlagError{Flag: "-lease-dsn", Reason: "missing: the snowflake lease needs a store to lease worker IDs from " +
				"(a postgres, mysql or sqlite database of idgen-server's), and no -dsn was given to use"}
		}
	}
	if dialect != "" || leaseStore == "idgen" {
		b.WriteString("stores:\n")
		if dialect != "" {
			fmt.Fprintf(&b, "  old: {type: %s, dsn: %q}\n", dialect, *dsn)
		}
		if leaseStore == "idgen" {
			typ, err := dsnDriver("", *leaseDSN)
			if err != nil {
				return fmt.Errorf("check: -lease-dsn: %w", err)
			}
			fmt.Fprintf(&b, "  idgen: {type: %s, dsn: %q}\n", typ, *leaseDSN)
		}
	}
	if snowflakePart {
		l, err := config.Layout(*layoutName)
		if err != nil {
			return fmt.Errorf("check: -layout: %v", err)
		}
		if err := snowflake.CheckFloor(l, snowflake.ID(*floor), now); err != nil {
			return fmt.Errorf("check: -layout %s: %w", l.Spec(), err)
		}
		fmt.Fprintf(&b, "snowflake:\n  layout: %s\n", l.Spec())
		if *query != "" {
			fmt.Fprintf(&b, "  floor: {store: old, query: %q}  # %d now\n", *query, *floor)
		} else if *floor > 0 {
			fmt.Fprintf(&b, "  floor: %d\n", *floor)
		}
		lease := fmt.Sprintf("  lease:\n    store: %s\n", leaseStore)
		if peerMin >= 0 {
			switch {
			case peerMax < l.MaxWorker():
				lease += fmt.Sprintf("    min_worker: %d  # the old fleet has %d-%d\n    max_worker: %d\n", peerMax+1, peerMin, peerMax, l.MaxWorker())
			case peerMin > 0:
				lease += fmt.Sprintf("    max_worker: %d  # the old fleet has %d-%d\n", peerMin-1, peerMin, peerMax)
			default:
				return fmt.Errorf("check: the old fleet's workers %d-%d fill the layout's [0, %d]: no worker ID is left for idgen beside it; stop the old fleet first or narrow its range", peerMin, peerMax, l.MaxWorker())
			}
		}
		b.WriteString(lease)
	}
	b.WriteString("tags:\n")
	if snowflakePart {
		taken := map[string]bool{}
		for _, t := range tags {
			taken[t.tag] = true
		}
		fmt.Fprintf(&b, "  - {name: %s, kind: snowflake}\n", snowflakeTagName(taken))
	}
	for _, t := range tags {
		fmt.Fprintf(&b, "  - {name: %s, kind: segment, store: old, schema: %s, table: %s}  # next ID %d\n", t.tag, t.schema, t.table, t.next)
	}
	// What is printed must be a configuration the server starts from.
	if _, err := config.Parse("check's output", []byte(b.String())); err != nil {
		return fmt.Errorf("check: the configuration these flags make is not one idgen-server accepts: %w", err)
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

// snowflakeTagName is the name of the snowflake tag check prints: "id", or, when the old
// system's segment table has a tag of that name (Leaf's biz_tag "id"), the first of
// "snowflake", "snowflake_id", "snowflake_id2", ... that it has not.
func snowflakeTagName(taken map[string]bool) string {
	for _, name := range []string{"id", "snowflake", "snowflake_id"} {
		if !taken[name] {
			return name
		}
	}
	for i := 2; ; i++ {
		if name := "snowflake_id" + strconv.Itoa(i); !taken[name] {
			return name
		}
	}
}

// FlagError is check's refusal of flags that leave out something the configuration it
// prints needs, or that another flag needs: Flag names the flag (or flags) to add,
// Reason says what for.
type FlagError struct {
	Flag   string
	Reason string
}

// Error implements error.
func (e *FlagError) Error() string { return "check: " + e.Flag + ": " + e.Reason }

// indexTag returns the index of the tag named name in cfg, or -1.
func indexTag(cfg *config.Config, name string) int {
	for i, t := range cfg.Tags {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// openDSN opens dsn with driver (postgres, mysql, sqlite), or the one its form names.
func openDSN(driver, dsn string) (string, *sql.DB, error) {
	driver, err := dsnDriver(driver, dsn)
	if err != nil {
		return "", nil, err
	}
	name := map[string]string{config.StorePostgres: "pgx", config.StoreMySQL: "mysql", config.StoreSQLite: "sqlite"}[driver]
	db, err := sql.Open(name, dsn)
	return driver, db, err
}

// dsnDriver returns driver (postgres, mysql, sqlite), or, when it is empty, the one the
// form of dsn names.
func dsnDriver(driver, dsn string) (string, error) {
	if driver == "" {
		switch {
		case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
			driver = config.StorePostgres
		case strings.Contains(dsn, "@tcp(") || strings.Contains(dsn, "@unix("):
			driver = config.StoreMySQL
		default:
			driver = config.StoreSQLite
		}
	}
	switch driver {
	case config.StorePostgres, config.StoreMySQL, config.StoreSQLite:
		return driver, nil
	}
	return "", fmt.Errorf("-driver %q: want postgres, mysql or sqlite", driver)
}
