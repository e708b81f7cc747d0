// Package server benchmarks idgen-server over loopback: an idgen-server process (built
// from cmd/idgen-server) and the load generator in this process, in the same run, on
// keep-alive connections. The server's CPU time is read from /proc, so each figure is
// per second of the server's CPU, whatever the load generator costs.
//
//	go test -run '^$' -bench . -benchtime 3s ./bench/server
//
// IDGEN_BENCH_SERVER_GOMAXPROCS=1 runs the server with GOMAXPROCS=1 (the load generator
// keeps every core): a server on one core spends less CPU a call, none in idle threads
// looking for work.
//
// BenchmarkTransport runs each protocol against the real server and against a constant
// handler served the same way (this test binary re-run as a server: connect-go's handler
// with the server's options, the same checks of token, tag and count, no ID issued),
// the transport's own limit. idgen-server itself has no constant mode.
// BenchmarkTransportRatio runs both at once and alternates their calls, so that the
// ratio of the two is measured on the same minutes of the machine. BenchmarkGRPCGo runs
// grpc-go's own server with an empty handler under the same load: what a Go gRPC server
// does on the machine at hand. cmd/idgen-server/docs/benchmarks.md has the figures.
package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idgen/idgen/idgenclient"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// conns is the number of client connections, one per load goroutine.
const conns = 64

var (
	buildOnce sync.Once
	bin       string
	buildErr  error
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(grpcGoEnv); addr != "" {
		serveGRPCGo(addr) // this process is the reference server of BenchmarkGRPCGo
		return
	}
	if addr := os.Getenv(constantEnv); addr != "" {
		serveConstant(addr) // this process is the constant server of BenchmarkTransport
		return
	}
	code := m.Run()
	if bin != "" {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// server is an idgen-server process.
type server struct {
	cmd *exec.Cmd
	url string
	log bytes.Buffer
}

func freePort(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startServer starts idgen-server on an SQLite file with a snowflake and a segment tag;
// constant starts the constant handler (serveConstant) instead.
func startServer(b *testing.B, constant bool) *server {
	if constant {
		return startConstant(b)
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "idgen-bench")
		if err != nil {
			buildErr = err
			return
		}
		bin = filepath.Join(dir, "idgen-server")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/idgen/idgen/cmd/idgen-server").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	dir := b.TempDir()
	port := freePort(b)
	cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
log: {level: warn}
stores:
  local: {type: sqlite, dsn: %q}
snowflake:
  layout: classic
  lease: {store: local, ttl: 10s}
tags:
  - {name: id, kind: snowflake}
  - {name: order, kind: segment, store: local, step: 1000000, min_step: 1000000, max_step: 10000000}
`, port, filepath.Join(dir, "idgen.db"))
	file := filepath.Join(dir, "idgen.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	s := start(b, port, exec.Command(bin, "-config", file))
	s.waitReadyz(b)
	return s
}

// startConstant runs this test binary as the constant server (serveConstant).
func startConstant(b *testing.B) *server {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	port := freePort(b)
	s := start(b, port, exec.Command(self), fmt.Sprintf("%s=127.0.0.1:%d", constantEnv, port))
	s.waitReadyz(b)
	return s
}

// waitReadyz waits up to 30 s for /readyz to answer 200.
func (s *server) waitReadyz(b *testing.B) {
	s.waitReady(b, func() error {
		res, err := http.Get(s.url + "/readyz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("/readyz: %s", res.Status)
		}
		return nil
	})
}

// start runs cmd as the server at port, with env added to this process's environment.
func start(b *testing.B, port int, cmd *exec.Cmd, env ...string) *server {
	s := &server{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	s.cmd.Env = append(os.Environ(), env...)
	if g := os.Getenv("IDGEN_BENCH_SERVER_GOMAXPROCS"); g != "" {
		// The server alone on fewer cores than the load generator.
		s.cmd.Env = append(s.cmd.Env, "GOMAXPROCS="+g)
	}
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
	return s
}

// waitReady waits up to 30 s for ready to succeed.
func (s *server) waitReady(b *testing.B, ready func() error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("server not ready: %v\n%s", err, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cpu returns the server's user plus system CPU time so far, from /proc.
func (s *server) cpu(b *testing.B) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		b.Fatalf("reading the server's CPU time: %v (the benchmark needs Linux's /proc)", err)
	}
	// Fields after the command name, which ends with the last ')': state is field 3,
	// utime 14 and stime 15, in clock ticks (100 per second on Linux).
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// caller makes one call with worker w's connection.
type caller func(ctx context.Context, w int) error

// protocols returns the three single-ID callers on 64 connections each.
func protocols(url string) map[string]caller {
	h1 := make([]*http.Client, conns)
	h2 := make([]*http.Client, conns)
	for i := range conns {
		h1[i] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		h2[i] = &http.Client{Transport: &http.Transport{Protocols: &p, MaxConnsPerHost: 1}}
	}
	cj := make([]idgenv1connect.IDServiceClient, conns)
	gr := make([]idgenv1connect.IDServiceClient, conns)
	for i := range conns {
		cj[i] = idgenv1connect.NewIDServiceClient(h1[i], url, connect.WithProtoJSON())
		gr[i] = idgenv1connect.NewIDServiceClient(h2[i], url, connect.WithGRPC())
	}
	return map[string]caller{
		"connect-json": func(ctx context.Context, w int) error {
			_, err := cj[w].Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "id"}))
			return err
		},
		"grpc": func(ctx context.Context, w int) error {
			_, err := gr[w].Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "id"}))
			return err
		},
		"leaf": func(ctx context.Context, w int) error {
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/api/snowflake/get/id", nil)
			res, err := h1[w].Do(req)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				return fmt.Errorf("status %d", res.StatusCode)
			}
			return err
		},
	}
}

// flatOut makes n calls over conns workers as fast as they go and returns the wall time.
func flatOut(b *testing.B, call caller, n int) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for w := range conns {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := call(context.Background(), w); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// paced makes calls at rate per second, spread over conns workers, for d, and returns
// the latencies. A worker behind its schedule (its last call ran past this one's
// scheduled start) counts from the scheduled start, so a stall counts for every call it
// delays; a worker that slept counts from when it woke and sent, so the load generator's
// own timer slop (BenchmarkSleep) is not the server's.
func paced(b *testing.B, call caller, rate float64, d time.Duration) []time.Duration {
	interval := time.Duration(float64(time.Second) * conns / rate)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		wg.Go(func() {
			mine := make([]time.Duration, 0, int(d/interval)+1)
			at := start.Add(time.Duration(w) * interval / conns)
			for at.Sub(start) < d {
				from := at
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
					from = time.Now()
				}
				if err := call(context.Background(), w); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(from))
				at = at.Add(interval)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}

func quantile(lat []time.Duration, q float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	return lat[min(len(lat)-1, int(q*float64(len(lat))))]
}

// BenchmarkTransport: single IDs at 64 connections over Connect-JSON, gRPC and Leaf's
// path. b.N calls flat out give req/s and req per second of server CPU; then calls paced
// at half that rate for 3 s give p50, p99 and p999. "constant" is the same server
// answering a constant: the transport's limit, to divide the first by.
func BenchmarkTransport(b *testing.B) {
	for _, mode := range []string{"idgen", "constant"} {
		s := startServer(b, mode == "constant")
		calls := protocols(s.url)
		for _, proto := range []string{"connect-json", "grpc", "leaf"} {
			b.Run(proto+"/"+mode, func(b *testing.B) { measure(b, s, calls[proto]) })
		}
	}
}

// measure makes b.N calls flat out (req/s, req per second of server CPU, server cores
// busy), then calls paced at half that rate for 3 s (p50, p99, p999).
func measure(b *testing.B, s *server, call caller) {
	flatOut(b, call, 2000) // warm the connections
	cpu0 := s.cpu(b)
	b.ResetTimer()
	wall := flatOut(b, call, b.N)
	b.StopTimer()
	cpu := s.cpu(b) - cpu0
	rate := float64(b.N) / wall.Seconds()
	b.ReportMetric(rate, "req/s")
	if cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "req/server-cpu-s")
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "server-cores")
	}
	lat := paced(b, call, rate/2, 3*time.Second)
	b.ReportMetric(float64(quantile(lat, 0.5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(quantile(lat, 0.99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(quantile(lat, 0.999).Microseconds()), "p999-µs")
}

// BenchmarkTransportRatio: idgen-server against the constant handler, both running,
// on the same protocols and load as BenchmarkTransport, their calls alternated in
// rounds (idgen, constant, constant, idgen, ...) so that a machine whose speed drifts
// during the run (a shared VM does) weighs on both alike. b.N calls go to each server;
// "ratio" is idgen's requests per second of server CPU divided by the constant's, the
// share of the transport's limit that idgen-server keeps while issuing real IDs.
func BenchmarkTransportRatio(b *testing.B) {
	servers := []*server{startServer(b, false), startServer(b, true)}
	calls := []map[string]caller{protocols(servers[0].url), protocols(servers[1].url)}
	const rounds = 8
	for _, proto := range []string{"connect-json", "grpc", "leaf"} {
		b.Run(proto, func(b *testing.B) {
			for i := range servers {
				flatOut(b, calls[i][proto], 2000) // warm the connections
			}
			var cpu [2]time.Duration
			var done [2]int
			b.ResetTimer()
			for r := range rounds {
				n := b.N / rounds
				if r == rounds-1 {
					n = b.N - n*(rounds-1)
				}
				if n == 0 {
					continue
				}
				for j := range servers {
					i := j
					if r%2 == 1 {
						i = 1 - j // ABBA: each server goes first in half the rounds
					}
					c0 := servers[i].cpu(b)
					flatOut(b, calls[i][proto], n)
					cpu[i] += servers[i].cpu(b) - c0
					done[i] += n
				}
			}
			b.StopTimer()
			if cpu[0] > 0 && cpu[1] > 0 {
				idgen := float64(done[0]) / cpu[0].Seconds()
				constant := float64(done[1]) / cpu[1].Seconds()
				b.ReportMetric(idgen, "idgen-req/server-cpu-s")
				b.ReportMetric(constant, "constant-req/server-cpu-s")
				b.ReportMetric(idgen/constant, "ratio")
			}
		})
	}
}

// grpcGoEnv names the address this test binary serves grpc-go on when re-run as
// BenchmarkGRPCGo's server.
const grpcGoEnv = "IDGEN_BENCH_GRPC_GO_SERVE"

// serveGRPCGo serves grpc-go's own health service at addr until killed.
func serveGRPCGo(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g := grpc.NewServer()
	healthpb.RegisterHealthServer(g, health.NewServer())
	fmt.Fprintln(os.Stderr, g.Serve(ln))
	os.Exit(1)
}

// BenchmarkGRPCGo: grpc-go's own server (google.golang.org/grpc, the fastest Go gRPC
// transport, which idgen-server does not use) answering grpc.health.v1 Check with
// nothing to do, driven by the same load generator and gRPC client as
// BenchmarkTransport/grpc: what any Go gRPC server can do on this machine, to read the
// 25,000 req per server CPU second goal against.
func BenchmarkGRPCGo(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	port := freePort(b)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := start(b, port, exec.Command(self), grpcGoEnv+"="+addr)
	cs := make([]*connect.Client[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse], conns)
	for i := range conns {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		hc := &http.Client{Transport: &http.Transport{Protocols: &p, MaxConnsPerHost: 1}}
		cs[i] = connect.NewClient[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse](hc, s.url+"/grpc.health.v1.Health/Check", connect.WithGRPC())
	}
	call := func(ctx context.Context, w int) error {
		r, err := cs[w].CallUnary(ctx, connect.NewRequest(&healthpb.HealthCheckRequest{}))
		if err == nil && r.Msg.Status != healthpb.HealthCheckResponse_SERVING {
			err = fmt.Errorf("status %v", r.Msg.Status)
		}
		return err
	}
	s.waitReady(b, func() error { return call(context.Background(), 0) })
	measure(b, s, call)
}

// BenchmarkList1000: List of 1,000 segment IDs at 64 connections, over gRPC (HTTP/2)
// and over Connect's binary protocol (HTTP/1.1); IDs/s and IDs per second of server CPU.
func BenchmarkList1000(b *testing.B) {
	s := startServer(b, false)
	for _, proto := range []string{"grpc", "connect-proto"} {
		b.Run(proto, func(b *testing.B) {
			cs := make([]idgenv1connect.IDServiceClient, conns)
			for i := range conns {
				if proto == "grpc" {
					var p http.Protocols
					p.SetUnencryptedHTTP2(true)
					cs[i] = idgenv1connect.NewIDServiceClient(&http.Client{Transport: &http.Transport{Protocols: &p}}, s.url, connect.WithGRPC())
				} else {
					cs[i] = idgenv1connect.NewIDServiceClient(&http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}, s.url)
				}
			}
			call := func(ctx context.Context, w int) error {
				r, err := cs[w].List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order", Count: 1000}))
				if err == nil && len(r.Msg.Ids) != 1000 {
					err = fmt.Errorf("%d IDs", len(r.Msg.Ids))
				}
				return err
			}
			flatOut(b, call, 200)
			cpu0 := s.cpu(b)
			b.ResetTimer()
			wall := flatOut(b, call, b.N)
			b.StopTimer()
			cpu := s.cpu(b) - cpu0
			b.ReportMetric(float64(b.N)*1000/wall.Seconds(), "IDs/s")
			if cpu > 0 {
				b.ReportMetric(float64(b.N)*1000/cpu.Seconds(), "IDs/server-cpu-s")
			}
		})
	}
}

// BenchmarkClientNextInt64: the Go client's NextInt64 with prefetch (Range calls for a
// segment tag, List for a snowflake tag), one goroutine and all of them.
func BenchmarkClientNextInt64(b *testing.B) {
	s := startServer(b, false)
	c, err := idgenclient.New(idgenclient.Options{Addresses: []string{s.url}, MaxBatch: 100_000, CallTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	seg, err := c.Segment(ctx, "order")
	if err != nil {
		b.Fatal(err)
	}
	sf, err := c.Snowflake(ctx, "id")
	if err != nil {
		b.Fatal(err)
	}
	for _, src := range []struct {
		name string
		s    interface {
			NextInt64(context.Context) (int64, error)
		}
	}{{"segment", seg}, {"snowflake", sf}} {
		b.Run(src.name, func(b *testing.B) {
			for range 100_000 { // warm: the batch follows the rate
				src.s.NextInt64(ctx)
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := src.s.NextInt64(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "IDs/s")
		})
		b.Run(src.name+"/parallel", func(b *testing.B) {
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := src.s.NextInt64(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "IDs/s")
		})
	}
}

// BenchmarkSleep: how late time.Sleep(1 ms) wakes in this process, idle otherwise: the
// machine's own timer and scheduling slop, to read the latency figures against (a
// paced call waits on such a timer before it is sent).
func BenchmarkSleep(b *testing.B) {
	late := make([]time.Duration, 0, b.N)
	for range b.N {
		t := time.Now()
		time.Sleep(time.Millisecond)
		late = append(late, time.Since(t)-time.Millisecond)
	}
	slices.Sort(late)
	b.ReportMetric(float64(quantile(late, 0.5).Microseconds()), "p50-late-µs")
	b.ReportMetric(float64(quantile(late, 0.99).Microseconds()), "p99-late-µs")
	b.ReportMetric(float64(late[len(late)-1].Microseconds()), "max-late-µs")
}
