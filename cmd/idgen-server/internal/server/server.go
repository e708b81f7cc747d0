// Package server is idgen-server put together: it opens the configuration's stores,
// leases a worker ID, builds the tags (package tags) and serves them through the data
// plane (package dataplane: the API over gRPC, gRPC-Web and Connect, Leaf's plain-text
// paths, grpc.health.v1, behind bearer tokens checked by package auth), with /healthz,
// /readyz and Prometheus metrics; the control plane (package control: the console's tag
// changes and their change log, the fleet view) is built here and read by the console.
//
// [New] opens the stores, leases a worker ID and builds the tags; [Server.Mux] is the
// http.ServeMux it all hangs on, for more handlers (the console); [Server.Serve] serves
// a listener and [Server.Shutdown] drains and releases the lease.
package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/dataplane"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Named defaults of building a server.
const (
	// reserveTimeout bounds one block reservation of a segment tag.
	reserveTimeout = 2 * time.Second
	// leaseAcquireTimeout bounds the first claim of a worker ID at start.
	leaseAcquireTimeout = 30 * time.Second
)

// Server is a configured idgen-server. Safe for concurrent use.
type Server struct {
	cfg     *config.Config
	log     *slog.Logger
	started time.Time

	stores map[string]*store
	table  atomic.Pointer[tags.Table]
	tagMu  sync.Mutex // serialises changes of table
	// admin changes the tags (the tag store, the steps) and keeps the changes in the
	// change logs of the stores holding segment tags.
	admin  *control.Admin
	rates  rates  // IDs per second over every tag
	stopBg func() // stops the background work (rates, tag refresh)
	bg     sync.WaitGroup
	auth   *auth.Auth

	lease    *lease.Lease // nil on a static worker ID or without snowflake tags
	static   *snowflake.Generator
	issued   issuedCounter
	metrics  *metrics
	plane    *dataplane.Plane
	mux      *http.ServeMux
	http     *http.Server
	draining atomic.Bool

	// fleet lists the instances sharing the lease's store (its registry set by
	// register) and the configured peers, for the console; reg is this server's record
	// in that store, nil without a lease or when registering failed.
	fleet *control.Fleet
	reg   *registry.Registration

	closeOnce sync.Once
	closeErr  error
}

// worker returns the worker ID the lease holds now, -1 when none (or no lease).
func (s *Server) worker() int64 {
	if s.lease == nil {
		return -1
	}
	return s.lease.State().Worker
}

// issuedCounter is a snowflake.IssuedCounter that hands the generators' counts to
// idotel's and keeps them for Status.
type issuedCounter struct {
	snowflake.IssuedCounter
	mu     sync.Mutex
	counts []func() uint64
	drift  atomic.Int64 // nanoseconds, the latest Drift
}

func (c *issuedCounter) CountIssued(f func() uint64) {
	c.mu.Lock()
	c.counts = append(c.counts, f)
	c.mu.Unlock()
	if c.IssuedCounter != nil {
		c.IssuedCounter.CountIssued(f)
	}
}

// Drift implements snowflake.Observer: it keeps the latest drift for Status.
func (c *issuedCounter) Drift(ahead time.Duration) {
	c.drift.Store(int64(ahead))
	if c.IssuedCounter != nil {
		c.IssuedCounter.Drift(ahead)
	}
}

func (c *issuedCounter) total() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n uint64
	for _, f := range c.counts {
		n += f()
	}
	return n
}

// New builds a Server from cfg: it opens the stores, claims a worker ID (waiting at most
// leaseAcquireTimeout) and builds the tags. Nothing listens yet. Close it with Shutdown.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger) (_ *Server, err error) {
	s := &Server{cfg: cfg, log: log, started: time.Now(), stores: map[string]*store{}, stopBg: func() {}}
	s.admin = &control.Admin{Tags: adminTags{s}, Log: log}
	s.fleet = &control.Fleet{
		Advertise: cfg.Advertise, Peers: cfg.Peers, Log: log,
		Status: func() *v1.StatusResponse { return s.Status(nil) },
		Key: func() []byte {
			if !s.auth.HasFleetKey() {
				return nil
			}
			return s.auth.FleetKey()
		},
	}
	defer func() {
		if err != nil {
			s.closeAll(context.Background())
		}
	}()
	if s.auth, err = auth.New(cfg); err != nil {
		return nil, err
	}
	if s.metrics, err = newMetrics(); err != nil {
		return nil, err
	}
	s.issued.IssuedCounter = s.metrics.snowflake
	open := func(name string) (*store, error) {
		if st, ok := s.stores[name]; ok {
			return st, nil
		}
		st, err := openStore(name, cfg.Stores[name])
		if err != nil {
			return nil, err
		}
		s.stores[name] = st
		log.Info("store opened", "store", name, "type", st.cfg.Type, "where", st.where)
		return st, nil
	}

	var snow tags.Source
	var layout snowflake.Layout
	if sf := cfg.Snowflake; sf != nil {
		layout = sf.Parsed
		opts := snowflake.Options{Observer: &s.issued}
		floor, err := s.snowflakeFloor(ctx, cfg, open)
		if err != nil {
			return nil, err
		}
		if err := snowflake.CheckFloor(layout, snowflake.ID(floor), time.Now()); err != nil {
			return nil, fmt.Errorf("server: snowflake.layout: %w", err)
		}
		opts.Floor = snowflake.ID(floor)
		if floor > 0 {
			log.Info("snowflake floor", "floor", floor, "layout", layout.Spec())
		}
		if w := sf.Lease.Worker; w != nil {
			if s.static, err = snowflake.New(layout, *w, opts); err != nil {
				return nil, fmt.Errorf("server: snowflake: %w", err)
			}
			snow = s.static
			log.Info("static worker ID", "worker", *w, "layout", layout.String())
		} else {
			st, err := open(sf.Lease.Store)
			if err != nil {
				return nil, err
			}
			b, err := st.leaseBackend(ctx)
			if err != nil {
				return nil, fmt.Errorf("server: snowflake.lease.store %q: %w", sf.Lease.Store, err)
			}
			lcfg := lease.Config{
				Layout: layout, Options: opts, MinWorker: sf.Lease.MinWorker, MaxWorker: sf.Lease.MaxWorker,
				TTL: sf.Lease.TTL, Margin: sf.Lease.Margin, Skew: sf.Lease.Skew,
				OnEvent: func(e lease.Event) {
					s.metrics.lease.OnEvent(e)
					logLease(log, e)
				},
			}
			actx, cancel := context.WithTimeout(ctx, leaseAcquireTimeout)
			s.lease, err = lease.Acquire(actx, b, lcfg)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("server: leasing a worker ID from store %q: %w", sf.Lease.Store, err)
			}
			snow = s.lease
			s.register(ctx, st)
		}
	}

	table := &tags.Table{}
	for _, tc := range cfg.Tags {
		sp := tags.Spec{Name: tc.Name, Kind: tags.KindOf(tc.Kind), Prefix: tc.Prefix}
		var t *tags.Tag
		switch tc.Kind {
		case config.KindSnowflake:
			sp.Source, sp.Layout = snow, layout
		case config.KindNumber:
			sp.Source, sp.Layout = snow, layout
			if sp.Format, err = number.Compile(number.Spec{Prefix: tc.Prefix, Time: tc.Time, Zone: tc.Location, Layout: layout, Check: tc.Check}); err != nil {
				return nil, fmt.Errorf("server: tag %q: %w", tc.Name, err)
			}
		case config.KindSegment:
			st, err := open(tc.Store)
			if err != nil {
				return nil, err
			}
			var ss segment.Store
			if tc.Schema == config.SchemaLeaf || tc.Schema == config.SchemaTinyid {
				ss, err = st.peerStore(tc.Schema, tc.Table)
			} else {
				ss, err = st.segmentStore(ctx)
			}
			if err != nil {
				return nil, fmt.Errorf("server: tag %q: %w", tc.Name, err)
			}
			floor, err := s.floor(ctx, tc.Floor, open)
			if err != nil {
				return nil, fmt.Errorf("server: tag %q: floor: %w", tc.Name, err)
			}
			if t, err = s.newSegmentTag(tc.Name, tc.Store, ss, segment.Options{Step: tc.Step, MinStep: tc.MinStep, MaxStep: tc.MaxStep, Floor: floor}, false); err != nil {
				return nil, err
			}
		}
		if t == nil {
			t = tags.New(sp)
		}
		table = table.With(t)
	}
	s.table.Store(table)
	if cfg.TagStore != "" {
		st, err := open(cfg.TagStore)
		if err != nil {
			return nil, err
		}
		ss, err := st.segmentStore(ctx)
		if err != nil {
			return nil, fmt.Errorf("server: tag_store %q: %w", cfg.TagStore, err)
		}
		ts, ok := ss.(control.TagStore)
		if !ok {
			return nil, fmt.Errorf("server: tag_store %q: store type %s cannot list or create tags", cfg.TagStore, st.cfg.Type)
		}
		s.admin.Store, s.admin.StoreName = ts, cfg.TagStore
		rctx, cancel := context.WithTimeout(ctx, control.StoreTimeout)
		err = s.admin.RefreshTagStore(rctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("server: tag_store %q: looking for tags: %w", cfg.TagStore, err)
		}
	}
	if err := s.openChangeLogs(); err != nil {
		return nil, err
	}
	// The steps chosen in the console apply before the first reservations. A store that
	// does not answer now is read again every control.TagRefresh, as its tags reserve again.
	rctx, cancel := context.WithTimeout(ctx, control.StoreTimeout)
	if err := s.admin.ApplySteps(rctx); err != nil {
		log.Warn("step changes not read at start", "err", err)
	}
	cancel()
	// Each segment tag reserves its first block now, so that readiness reflects its
	// store and the first call does not wait. No ID is taken: a fresh tag starts at 1.
	for _, t := range s.tagList() {
		if t.Alloc() != nil {
			wctx, cancel := context.WithTimeout(ctx, reserveTimeout)
			err := t.Alloc().Fill(wctx)
			cancel()
			if fe := (*segment.FloorError)(nil); errors.As(err, &fe) {
				return nil, fmt.Errorf("server: tag %q: %w", t.Name(), fe)
			}
			if ce := (*segment.ColumnError)(nil); errors.As(err, &ce) {
				return nil, fmt.Errorf("server: tag %q: %w", t.Name(), ce)
			}
			if err != nil {
				log.Warn("segment tag not ready at start", "tag", t.Name(), "err", err)
			}
		}
	}
	s.plane = dataplane.New(dataplane.Options{
		Backend: backend{s}, Config: cfg, Auth: s.auth, Log: log,
		Interceptor: s.metrics.interceptor(), Counted: s.metrics.httpCounted,
	})
	s.mux = s.routes()
	bg, stop := context.WithCancel(context.Background())
	s.stopBg = stop
	s.bg.Go(func() { s.sampleRates(bg) })
	if s.admin.Store != nil || len(s.admin.Logs) > 0 {
		s.bg.Go(func() { s.admin.Loop(bg) })
	}
	// Other instances sign their Status calls with the fleet key, and each call's time
	// bound (PeerTimeout) covers this server's first derivation of it: PBKDF2, tens of
	// milliseconds, seconds on a loaded machine. A server that is part of a fleet derives
	// it now, in the background, instead of in its first peer's call.
	if s.auth.HasFleetKey() && (s.fleet.Registry != nil || len(s.cfg.Peers) > 0) {
		s.bg.Go(func() { s.auth.FleetKey() })
	}
	return s, nil
}

// register records this server in st, the store of its lease, so that the instances
// sharing the store find one another (Fleet). A failure is logged, not fatal: the record
// serves a view, and IDs need only the lease.
func (s *Server) register(ctx context.Context, st *store) {
	rctx, cancel := context.WithTimeout(ctx, control.StoreTimeout)
	defer cancel()
	rs, err := st.registry(rctx)
	if err != nil {
		s.log.Warn("fleet: cannot keep the servers' records in the lease store; the fleet view shows peers only", "store", st.name, "err", err)
		return
	}
	s.fleet.Registry, s.fleet.RegistryStore = rs, st.name
	self := registry.Instance{ID: registry.NewID(), URL: s.cfg.Advertise, Worker: s.worker(), Started: s.started}
	// failing is true during a streak of failed writes, so that each streak is logged
	// once when it starts and once when it ends, not at every heartbeat.
	var failing atomic.Bool
	o := registry.Options{
		Worker: s.worker,
		OnBeat: func(err error) {
			switch {
			case err != nil && !failing.Swap(true):
				s.log.Warn("fleet: cannot write this server's record; other instances do not list it until a heartbeat succeeds", "store", st.name, "err", err)
			case err == nil && failing.Swap(false):
				s.log.Info("fleet: recorded in the lease store again", "store", st.name, "instance", self.ID)
			}
		},
	}
	failing.Store(true) // until the first write returns
	s.reg, err = registry.Register(rctx, rs, self, o)
	if s.reg != nil {
		s.fleet.SelfID = s.reg.ID()
	}
	switch {
	case s.reg == nil:
		s.log.Warn("fleet: cannot record this server in the lease store; other instances will not list it", "store", st.name, "err", err)
	case err != nil:
		s.log.Warn("fleet: cannot record this server in the lease store yet; retrying at every heartbeat", "store", st.name, "err", err)
	default:
		failing.Store(false)
		s.log.Info("fleet: recorded in the lease store", "store", st.name, "instance", self.ID, "advertise", self.URL)
	}
}

// segmentObserver tells idotel and the log of each reservation.
type segmentObserver struct {
	next segment.Observer
	log  *slog.Logger
}

func (o segmentObserver) Reserved(tag string, n int64, d time.Duration, err error) {
	if err != nil {
		o.log.Warn("segment reservation failed", "tag", tag, "took", d, "err", err)
	}
	o.next.Reserved(tag, n, d, err)
}

func logLease(log *slog.Logger, e lease.Event) {
	args := []any{"event", e.Kind.String(), "worker", e.Worker, "took", e.Took}
	if !e.Deadline.IsZero() {
		args = append(args, "deadline", e.Deadline)
	}
	if e.Fresh {
		args = append(args, "fresh", true, "after", e.After)
	}
	switch e.Kind {
	case lease.Renewed:
		log.Debug("lease", args...)
	case lease.Acquired, lease.Released:
		log.Info("lease", args...)
	default:
		log.Warn("lease", append(args, "err", e.Err)...)
	}
}

// Mux returns the ServeMux every handler hangs on: the API at /idgen.v1.IDService/,
// health, reflection, /healthz, /readyz, /metrics and Leaf's /api/ paths. Mount more
// (the console at "/") before serving.
func (s *Server) Mux() *http.ServeMux { return s.mux }

// Auth returns the server's authentication, built once from its configuration: the
// console checks tokens and signs sessions with it.
func (s *Server) Auth() *auth.Auth { return s.auth }

// Admin returns the server's control of its tags, for the console: segment tags created
// in the tag store, steps chosen, the changes kept.
func (s *Server) Admin() *control.Admin { return s.admin }

// Fleet returns this server's status and that of every other instance of its fleet, as
// control.Fleet.List finds them.
func (s *Server) Fleet(ctx context.Context) []control.Peer { return s.fleet.List(ctx) }

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	s.plane.Mount(mux)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.auth.HTTPAll(s.metrics.handler()))
	return mux
}

// Handler returns the Server's root handler: Mux behind the data plane's request size
// limit, gRPC-Web's text mode, token check and CORS (dataplane.Plane.Handler).
func (s *Server) Handler() http.Handler { return s.plane.Handler(s.mux) }

// backend is the Server as the data plane sees it.
type backend struct{ s *Server }

func (b backend) Tag(name string) (*tags.Tag, bool)       { return b.s.tagNamed(name) }
func (b backend) Tags() []*tags.Tag                       { return b.s.tagList() }
func (b backend) Ready() (bool, string)                   { return b.s.ready() }
func (b backend) Draining() bool                          { return b.s.draining.Load() }
func (b backend) Status(g *auth.Grant) *v1.StatusResponse { return b.s.Status(g) }

// Decode reads input as an ID of any tag g grants (dataplane.Decode): the console's
// decoder.
func (s *Server) Decode(g *auth.Grant, input string, zone *time.Location) (*v1.DecodeResponse, error) {
	return dataplane.Decode(s.tagList(), g, input, zone)
}

// tlsConfig returns the TLS configuration of cfg, nil without TLS.
func tlsConfig(cfg *config.Config) (*tls.Config, error) {
	if cfg.TLS.Cert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLS.Cert, cfg.TLS.Key)
	if err != nil {
		return nil, &config.Error{Source: cfg.Source, Field: "tls.cert", Msg: err.Error()}
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	if cfg.TLS.ClientCA != "" {
		pem, err := os.ReadFile(cfg.TLS.ClientCA)
		if err != nil {
			return nil, &config.Error{Source: cfg.Source, Field: "tls.client_ca", Msg: err.Error()}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &config.Error{Source: cfg.Source, Field: "tls.client_ca", Msg: "no PEM certificate in " + cfg.TLS.ClientCA}
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tc, nil
}

// Serve serves ln (wrapped in TLS when configured) until Shutdown: HTTP/1.1 and HTTP/2
// (cleartext HTTP/2 without TLS, which gRPC needs), keep-alive. It returns
// http.ErrServerClosed after Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	tc, err := tlsConfig(s.cfg)
	if err != nil {
		return err
	}
	ln = dataplane.LimitListener(ln, s.cfg.Limits.MaxConnections)
	var p http.Protocols
	p.SetHTTP1(true)
	if tc != nil {
		p.SetHTTP2(true)
		ln = tls.NewListener(ln, tc)
	} else {
		p.SetUnencryptedHTTP2(true)
		// HTTP/2's frame reader reads a frame header, then its payload, straight from
		// the connection: two system calls a frame, four a gRPC call. TLS buffers
		// records already; a plain connection gets a read buffer: a gRPC call's 5 reads
		// become 2, and it costs about a fifth less of the server's CPU (README).
		ln = dataplane.BufferedListener(ln)
	}
	s.http = &http.Server{
		Handler:           s.plane.Edge(s.Handler()),
		Protocols:         &p,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s.http.Serve(ln)
}

// Shutdown stops accepting calls, lets those in flight finish until ctx ends, then
// releases the lease (so the worker ID is free at once) and closes the stores.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	var err error
	if s.http != nil {
		err = s.http.Shutdown(ctx)
		if err != nil {
			s.log.Warn("drain cut short", "err", err)
			s.http.Close()
		}
	}
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(err, s.closeAll(rctx))
}

func (s *Server) closeAll(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.stopBg()
		s.bg.Wait()
		var errs []error
		s.fleet.Close()
		if s.reg != nil {
			if err := s.reg.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("server: %w", err))
			}
		}
		if s.lease != nil {
			if err := s.lease.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("server: releasing the lease: %w", err))
			}
		}
		if s.metrics != nil {
			s.metrics.close()
		}
		for _, st := range s.stores {
			if err := st.close(); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// ready reports whether the Server should get traffic, and why not: not draining, the
// lease held with its margin (past a fresh claim's wait), and every segment tag able to
// serve (IDs buffered, or its latest reservation succeeded).
func (s *Server) ready() (bool, string) {
	if s.draining.Load() {
		return false, "shutting down"
	}
	if s.lease != nil {
		st := s.lease.State()
		now := time.Now()
		switch {
		case st.Deadline.IsZero():
			return false, "no worker ID held (" + st.Last.String() + ")"
		case !now.Before(st.Deadline):
			return false, "worker-ID lease not renewed in time"
		case now.Before(st.After):
			return false, "waiting for a fresh worker ID's previous holders to stop"
		}
	}
	for _, t := range s.tagList() {
		if t.Alloc() == nil {
			continue
		}
		if st := t.Alloc().Stats(); st.Buffered == 0 && st.Err != nil {
			return false, "a segment tag has no IDs buffered and its store fails"
		}
	}
	return true, ""
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ok, why := s.ready(); !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("not ready: " + why + "\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

// Status reports this server: the lease, readiness and the tags g grants (every tag for
// nil): the data of the API's Status call and of the console.
func (s *Server) Status(g *auth.Grant) *v1.StatusResponse {
	addr := s.cfg.Advertise
	if addr == "" {
		addr = s.cfg.Listen
	}
	ok, why := s.ready()
	r := &v1.StatusResponse{
		Address: addr, Ready: ok, NotReadyReason: why, Started: timestamppb.New(s.started),
		Now: timestamppb.Now(), Rate: s.rates.list(), RateInterval: durationpb.New(s.rateInterval()),
	}
	if g != nil && !g.All {
		r.Rate = nil // the sum over every tag: a token of some tags sees only theirs
	}
	switch {
	case s.lease != nil:
		st := s.lease.State()
		r.Lease = &v1.LeaseStatus{Worker: st.Worker, LastEvent: st.Last.String()}
		if !st.Deadline.IsZero() {
			r.Lease.Deadline = timestamppb.New(st.Deadline)
		}
		if st.Err != nil {
			r.Lease.LastError = publicError(st.Err)
		}
		r.Lease.Issued, r.Lease.DriftNanos = s.issued.total(), s.issued.drift.Load()
		ttl, margin := s.leaseTerm()
		r.Lease.Ttl, r.Lease.Margin = durationpb.New(ttl), durationpb.New(margin)
	case s.static != nil:
		r.Lease = &v1.LeaseStatus{Worker: s.static.Worker(), LastEvent: "static", Issued: s.issued.total(), DriftNanos: s.issued.drift.Load()}
	}
	for _, t := range s.tagList() {
		if g != nil && !g.Allows(t.Name()) {
			continue
		}
		ts := &v1.TagStatus{Name: t.Name(), Kind: t.Kind(), Store: t.Store(), FromStore: t.FromStore(), Rate: t.Rate()}
		if t.Alloc() != nil {
			st := t.Alloc().Stats()
			ts.Step, ts.Buffered, ts.Reserved, ts.Failed, ts.Waited = st.Step, st.Buffered, st.Reserved, st.Failed, st.Waited
			ts.Current, ts.CurrentSize, ts.Next = st.Current, st.CurrentSize, st.Next
			for _, h := range t.Alloc().History() {
				rv := &v1.Reservation{Time: timestamppb.New(h.At), Step: h.Step, Took: durationpb.New(h.Took)}
				if h.Err != nil {
					rv.Error = publicError(h.Err)
				}
				ts.Reservations = append(ts.Reservations, rv)
			}
		}
		r.Tags = append(r.Tags, ts)
	}
	return r
}

// leaseTerm returns the lease's TTL and margin as the lease resolves them.
func (s *Server) leaseTerm() (ttl, margin time.Duration) {
	l := s.cfg.Snowflake.Lease
	ttl, margin = l.TTL, l.Margin
	if ttl == 0 {
		ttl = lease.DefaultTTL
	}
	if margin == 0 {
		margin = ttl / 10
	}
	return ttl, margin
}

// publicError is what Status says of a lease or reservation error: the sentinel's text
// when it is one of the runtime's (no address or driver message in those), "timed out",
// or a sentence pointing at the log, where the cause was written when it happened. Status
// reaches API callers and the console; a store's address or driver message never does.
func publicError(err error) string {
	for _, known := range []error{lease.ErrAllTaken, lease.ErrLost, lease.ErrNotHeld, lease.ErrClosed, segment.ErrTagExists} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the store did not answer in time"
	}
	return "the store call failed (the cause is in the server's log)"
}

// floor returns the value of f: its number, or its query's result on its store (0 for
// NULL, an empty table).
func (s *Server) floor(ctx context.Context, f *config.Floor, open func(string) (*store, error)) (int64, error) {
	if f == nil {
		return 0, nil
	}
	if f.Query == "" {
		return f.ID, nil
	}
	st, err := open(f.Store)
	if err != nil {
		return 0, err
	}
	if st.db == nil {
		return 0, fmt.Errorf("store %q is not an SQL store", f.Store)
	}
	qctx, cancel := context.WithTimeout(ctx, dataplane.CallTimeout)
	defer cancel()
	var v sql.NullInt64
	if err := st.db.QueryRowContext(qctx, f.Query).Scan(&v); err != nil {
		return 0, fmt.Errorf("%s: %w", f, err)
	}
	if v.Int64 < 0 {
		return 0, fmt.Errorf("%s returned %d: want the highest ID issued, not negative", f, v.Int64)
	}
	s.log.Info("floor read", "query", f.Query, "store", f.Store, "floor", v.Int64)
	return v.Int64, nil
}

// snowflakeFloor returns the highest of snowflake.floor and the floors of the snowflake
// and number tags, which share the one generator.
func (s *Server) snowflakeFloor(ctx context.Context, cfg *config.Config, open func(string) (*store, error)) (int64, error) {
	top, err := s.floor(ctx, cfg.Snowflake.Floor, open)
	if err != nil {
		return 0, fmt.Errorf("server: snowflake.floor: %w", err)
	}
	for _, tc := range cfg.Tags {
		if tc.Kind != config.KindSnowflake && tc.Kind != config.KindNumber {
			continue
		}
		f, err := s.floor(ctx, tc.Floor, open)
		if err != nil {
			return 0, fmt.Errorf("server: tag %q: floor: %w", tc.Name, err)
		}
		top = max(top, f)
	}
	return top, nil
}
