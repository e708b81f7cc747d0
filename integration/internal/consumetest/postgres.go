package consumetest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Postgres is a PostgreSQL server of the test's own, for tests that stop and start the
// database under running consumers: initdb'd into a temporary directory, listening on a
// free loopback port (no Unix socket), run by the postgres user when the test runs as root
// (PostgreSQL refuses root). It is stopped, and its directory removed, when the test ends.
type Postgres struct {
	// DSN reaches its database "postgres" as the superuser postgres.
	DSN string

	t    testing.TB
	dir  string // the data directory
	log  string // the server's log file
	port int
	as   []string  // the command prefix that runs a program as the server's owner
	up   time.Time // when the last Start first got an answer
}

// StartPostgres initdbs and starts a server (StartPostgres waits until it accepts
// connections). It needs initdb and pg_ctl on PATH; without them the test is skipped
// naming IDGEN_TEST_POSTGRES_DSN when that is unset, and fails when it is set.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	for _, bin := range []string{"initdb", "pg_ctl"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv(testdb.PostgresEnv) == "" {
				t.Skip("set " + testdb.PostgresEnv + " and put initdb and pg_ctl on PATH to run against a PostgreSQL of the test's own")
			}
			t.Fatalf("consumetest: %s is set but %s is not on PATH: tests that start their own PostgreSQL need it", testdb.PostgresEnv, bin)
		}
	}
	p := &Postgres{t: t}
	root, err := os.MkdirTemp("", "idgen-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	// The server's owner must reach its directory: MkdirTemp's is 0700.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	p.dir, p.log = filepath.Join(root, "data"), filepath.Join(root, "server.log")
	if err := os.Mkdir(p.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("consumetest: running as root, PostgreSQL needs the user postgres to run as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, f := range []string{p.dir, root} {
			if err := os.Chown(f, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		p.as = []string{"runuser", "-u", "postgres", "--"}
	}
	if out, err := p.run("initdb", "-D", p.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"); err != nil {
		t.Fatalf("consumetest: initdb: %v: %s", err, out)
	}
	conf := "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\nfull_page_writes = off\n" +
		"max_connections = 200\nshared_buffers = 32MB\n"
	if err := appendFile(filepath.Join(p.dir, "postgresql.conf"), conf); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	p.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
	t.Cleanup(func() { p.stop("immediate") })
	p.Start()
	t.Log(testdb.UsedMarker + "PostgreSQL (its own server)")
	return p
}

// run runs a PostgreSQL program as the server's owner.
func (p *Postgres) run(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, p.as...), name), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // no signal of the test's reaches it
	return cmd.CombinedOutput()
}

// Start starts the server (again) and returns once it accepts connections.
func (p *Postgres) Start() {
	p.t.Helper()
	// Not -w: pg_ctl would look every 100 ms; WaitUp asks every 5 ms.
	out, err := p.run("pg_ctl", "-D", p.dir, "-l", p.log, "-o", "-p "+strconv.Itoa(p.port), "-W", "start")
	if err != nil {
		log, _ := os.ReadFile(p.log)
		p.t.Fatalf("consumetest: pg_ctl start: %v: %s\n%s", err, out, lastLines(string(log), 20))
	}
	p.WaitUp()
}

// WaitUp returns once the server accepts connections and answers a query.
func (p *Postgres) WaitUp() {
	p.t.Helper()
	db, err := sql.Open("pgx", p.DSN)
	if err != nil {
		p.t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			p.up = time.Now()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(p.log)
			p.t.Fatalf("consumetest: PostgreSQL on port %d does not answer: %v\n%s", p.port, err, lastLines(string(log), 20))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Stop stops the server at once, as a crash would (pg_ctl stop -m immediate: no
// checkpoint, every session cut), and returns once it is down. Start runs it again, after
// crash recovery.
func (p *Postgres) Stop() {
	p.t.Helper()
	if out, err := p.stop("immediate"); err != nil {
		p.t.Fatalf("consumetest: pg_ctl stop: %v: %s", err, out)
	}
}

func (p *Postgres) stop(mode string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(p.dir, "postmaster.pid")); err != nil {
		return nil, nil // not running
	}
	return p.run("pg_ctl", "-D", p.dir, "-m", mode, "-w", "-t", "60", "stop")
}

// Store returns a fresh Store on the server's database, as Kinds' "postgres" does on the
// shared server.
func (p *Postgres) Store(t testing.TB) *Store {
	t.Helper()
	return open(t, "postgres", "pgx", p.DSN, sqldb.Postgres)
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
