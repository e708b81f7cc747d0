package server_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/dataplane"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
	"github.com/idgen/idgen/runtime/sqldb"
)

const (
	allToken   = "all-tags-token-0123456789"
	orderToken = "order-only-token-0123456789"
)

// testConfig returns a configuration with every kind of tag on an SQLite file, two tokens
// (one for every tag, one for "order" only) and a cap of 1,000.
func testConfig(t *testing.T) string {
	return "stores:\n" + testserver.SQLite(t, "local") + `
snowflake:
  layout: classic
  lease: {store: local, ttl: 3s}
limits: {max_count: 1000}
tokens:
  - {name: all, token: ` + allToken + `}
  - {name: order, token: ` + orderToken + `, tags: [order]}
tags:
  - {name: id, kind: snowflake}
  - {name: usr, kind: snowflake, prefix: usr}
  - {name: order, kind: segment, store: local, step: 100}
  - {name: ord, kind: number, prefix: ORD, check: true, zone: "+08:00"}
  - {name: user, kind: typeid, prefix: user}
  - {name: uuid, kind: uuid7}
`
}

func client(url, token string, opts ...connect.ClientOption) idgenv1connect.IDServiceClient {
	if token != "" {
		opts = append(opts, connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
			return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
				req.Header().Set("Authorization", "Bearer "+token)
				return next(ctx, req)
			}
		})))
	}
	return idgenv1connect.NewIDServiceClient(http.DefaultClient, url, opts...)
}

func waitReady(t *testing.T, url string) {
	testserver.WaitFor(t, "ready", 10*time.Second, func() error {
		res, err := http.Get(url + "/readyz")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return errors.New(string(b))
		}
		return nil
	})
}

func TestKinds(t *testing.T) {
	s := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	c := client(s.URL, allToken)
	ctx := context.Background()

	var last int64
	for range 3 {
		r, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "id"}))
		if err != nil {
			t.Fatal(err)
		}
		if r.Msg.Id <= last || r.Msg.Text == "" {
			t.Fatalf("snowflake %d after %d (text %q)", r.Msg.Id, last, r.Msg.Text)
		}
		last = r.Msg.Id
	}
	typed, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "usr"}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(typed.Msg.Text, "usr_") || len(typed.Msg.Text) != 4+13 || typed.Msg.Id <= last {
		t.Fatalf("typed snowflake ID %+v", typed.Msg)
	}
	back, err := c.Decode(ctx, connect.NewRequest(&v1.DecodeRequest{Tag: "usr", Id: typed.Msg.Text}))
	if err != nil || back.Msg.Id != typed.Msg.Id {
		t.Fatalf("decode of %q: %v %v", typed.Msg.Text, back, err)
	}
	num, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "ord"}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(num.Msg.Text, "ORD") || num.Msg.Id <= last {
		t.Fatalf("number %+v", num.Msg)
	}
	dec, err := c.Decode(ctx, connect.NewRequest(&v1.DecodeRequest{Id: num.Msg.Text, Zone: "+08:00"}))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Msg.Tag != "ord" || dec.Msg.Id != num.Msg.Id || !strings.HasSuffix(dec.Msg.LocalTime, "+08:00") {
		t.Fatalf("decode %+v", dec.Msg)
	}
	bad := num.Msg.Text[:len(num.Msg.Text)-1] + string('0'+(num.Msg.Text[len(num.Msg.Text)-1]-'0'+1)%10)
	if _, err := c.Decode(ctx, connect.NewRequest(&v1.DecodeRequest{Tag: "ord", Id: bad})); connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "check digit") {
		t.Fatalf("decode of a wrong check digit: %v", err)
	}

	list, err := c.List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order", Count: 250}))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(list.Msg.Ids); i++ {
		if list.Msg.Ids[i] <= list.Msg.Ids[i-1] {
			t.Fatalf("segment list not increasing at %d", i)
		}
	}
	rng, err := c.Range(ctx, connect.NewRequest(&v1.RangeRequest{Tag: "order", Count: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	if rng.Msg.Start <= list.Msg.Ids[249] || rng.Msg.Count < 1 || rng.Msg.Count > 1000 {
		t.Fatalf("range %+v after %d", rng.Msg, list.Msg.Ids[249])
	}
	if _, err := c.Range(ctx, connect.NewRequest(&v1.RangeRequest{Tag: "id", Count: 10})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("range of a snowflake tag: %v", err)
	}
	texts, err := c.List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "user", Count: 3}))
	if err != nil {
		t.Fatal(err)
	}
	if len(texts.Msg.Texts) != 3 || !strings.HasPrefix(texts.Msg.Texts[0], "user_") {
		t.Fatalf("typeid list %v", texts.Msg.Texts)
	}
	u, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "uuid"}))
	if err != nil || len(u.Msg.Text) != 36 || u.Msg.Text[14] != '7' {
		t.Fatalf("uuid7 %v %v", u, err)
	}
	tags, err := c.ListTags(ctx, connect.NewRequest(&v1.ListTagsRequest{}))
	if err != nil || len(tags.Msg.Tags) != 6 {
		t.Fatalf("tags %v %v", tags, err)
	}
}

// TestRefusals: each refusal has its code, and a caller learns nothing about tags its
// token does not grant.
func TestRefusals(t *testing.T) {
	s := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	ctx := context.Background()
	next := func(c idgenv1connect.IDServiceClient, tag string) error {
		_, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: tag}))
		return err
	}
	cases := []struct {
		name string
		err  error
		code connect.Code
		msg  string
	}{
		{"no token", next(client(s.URL, ""), "order"), connect.CodeUnauthenticated, "bearer token is required"},
		{"wrong token", next(client(s.URL, "not-the-token-0123456789"), "order"), connect.CodeUnauthenticated, "invalid bearer token"},
		{"no token, unknown tag", next(client(s.URL, ""), "nope"), connect.CodeUnauthenticated, "bearer token is required"},
		{"tag not granted", next(client(s.URL, orderToken), "id"), connect.CodePermissionDenied, `does not grant tag "id"`},
		{"unknown tag, token of one tag", next(client(s.URL, orderToken), "nope"), connect.CodePermissionDenied, `does not grant tag "nope"`},
		{"unknown tag", next(client(s.URL, allToken), "nope"), connect.CodeNotFound, `unknown tag "nope"`},
		{"over the count cap", func() error {
			_, err := client(s.URL, allToken).List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order", Count: 1001}))
			return err
		}(), connect.CodeInvalidArgument, "count 1001 out of range [1, 1000]"},
		{"range over the cap", func() error {
			_, err := client(s.URL, allToken).Range(ctx, connect.NewRequest(&v1.RangeRequest{Tag: "order", Count: 1 << 40}))
			return err
		}(), connect.CodeInvalidArgument, "out of range [1, 1000]"},
		{"zero count", func() error {
			_, err := client(s.URL, allToken).List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order"}))
			return err
		}(), connect.CodeInvalidArgument, "count 0 out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if connect.CodeOf(c.err) != c.code || !strings.Contains(c.err.Error(), c.msg) {
				t.Fatalf("got %v, want %v with %q", c.err, c.code, c.msg)
			}
		})
	}
	if err := next(client(s.URL, orderToken), "order"); err != nil {
		t.Fatalf("granted tag: %v", err)
	}
	// A token for one tag lists only that tag.
	tags, err := client(s.URL, orderToken).ListTags(ctx, connect.NewRequest(&v1.ListTagsRequest{}))
	if err != nil || len(tags.Msg.Tags) != 1 || tags.Msg.Tags[0].Name != "order" {
		t.Fatalf("tags of the order token: %v %v", tags, err)
	}
	// A request over the size limit is refused before any work.
	big := strings.Repeat("x", 70<<10)
	res, err := http.Post(s.URL+"/idgen.v1.IDService/Next", "application/json", strings.NewReader(`{"tag":"`+big+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), `"resource_exhausted"`) {
		t.Fatalf("oversized request: %d %s, want Connect's resource_exhausted", res.StatusCode, b)
	}
	// /metrics names tags: only for a token of every tag.
	for token, want := range map[string]int{"": 401, orderToken: 403, allToken: 200} {
		req, _ := http.NewRequest("GET", s.URL+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("/metrics with %q: %d, want %d", token, res.StatusCode, want)
		}
		if want == 200 && (!strings.Contains(string(b), "idgen_lease_held") || !strings.Contains(string(b), `idgen_server_calls_total{`)) {
			t.Fatalf("/metrics lacks idgen's instruments:\n%.2000s", b)
		}
	}
}

// TestStoreDown: a segment tag whose store does not answer is UNAVAILABLE with a
// generic message and a retry hint, and the server is not ready.
func TestStoreDown(t *testing.T) {
	s := testserver.Start(t, `
stores:
  gone: {type: postgres, dsn: "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"}
tags:
  - {name: order, kind: segment, store: gone}
`)
	c := client(s.URL, "")
	_, err := c.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "order"}))
	if connect.CodeOf(err) != connect.CodeUnavailable {
		t.Fatalf("got %v, want UNAVAILABLE", err)
	}
	var ce *connect.Error
	errors.As(err, &ce)
	if strings.Contains(ce.Message(), "127.0.0.1:1") || strings.Contains(ce.Message(), "connect") {
		t.Fatalf("the message tells the cause: %q", ce.Message())
	}
	if ce.Meta().Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", ce.Meta().Get("Retry-After"))
	}
	var hint bool
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if ri, ok := m.(*errdetails.RetryInfo); ok && ri.RetryDelay.AsDuration() == time.Second {
				hint = true
			}
		}
	}
	if !hint {
		t.Fatalf("no RetryInfo detail in %v", ce.Details())
	}
	res, err := http.Get(s.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d with the store down", res.StatusCode)
	}
	res, err = http.Get(s.URL + "/api/segment/get/order")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "retry") {
		t.Fatalf("leaf path with the store down: %d %q", res.StatusCode, b)
	}
}

// TestProtocols: one port serves Connect (JSON and binary), gRPC, gRPC-Web, Leaf's
// paths and grpc.health.v1.
func TestProtocols(t *testing.T) {
	s := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	h2c := &http.Client{Transport: &http.Transport{Protocols: func() *http.Protocols {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		return &p
	}()}}
	ctx := context.Background()
	for name, c := range map[string]idgenv1connect.IDServiceClient{
		"connect-proto": client(s.URL, allToken),
		"connect-json":  client(s.URL, allToken, connect.WithProtoJSON()),
		"grpc":          idgenv1connect.NewIDServiceClient(h2c, s.URL, connect.WithGRPC(), connect.WithInterceptors(bearerFor(allToken))),
		"grpc-web":      client(s.URL, allToken, connect.WithGRPCWeb()),
	} {
		if _, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "id"})); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Reflection lists the service, as grpcurl asks.
	stream := grpcreflect.NewClient(h2c, s.URL).NewStream(ctx)
	names, err := stream.ListServices()
	stream.Close()
	if err != nil || !slices.Contains(names, protoreflect.FullName(idgenv1connect.IDServiceName)) {
		t.Errorf("reflection: %v %v", names, err)
	}
	// grpc.health.v1 over Connect's JSON, as a probe without a gRPC library would ask.
	hres, err := http.Post(s.URL+"/"+dataplane.HealthServiceName+"/Check", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	if !strings.Contains(string(hb), `"SERVING"`) { // grpc.health.v1's name of the value
		t.Errorf("health: %d %s", hres.StatusCode, hb)
	}
	for path, kind := range map[string]string{"/api/segment/get/order": "segment", "/api/snowflake/get/id": "snowflake"} {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+allToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || len(b) == 0 || strings.Trim(string(b), "0123456789") != "" {
			t.Errorf("%s (%s): %d %q", path, kind, res.StatusCode, b)
		}
	}
	req, _ := http.NewRequest("GET", s.URL+"/api/segment/get/id", nil)
	req.Header.Set("Authorization", "Bearer "+allToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("segment path of a snowflake tag: %d", res.StatusCode)
	}
}

func bearerFor(token string) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+token)
			return next(ctx, req)
		}
	})
}

func discard() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

// TestFleet: servers sharing a lease store find one another through it with no peers
// configured, each with its own worker ID; peers adds an instance not in the store (on
// a static worker ID) and does not list twice one found there; an instance recorded in
// the store that does not answer is listed as unreachable, and is gone once its record
// expires; a server shut down leaves the fleet at once.
func TestFleet(t *testing.T) {
	ctx := context.Background()
	file := t.TempDir() + "/idgen.db"
	cfg := fmt.Sprintf(`stores:
  local: {type: sqlite, dsn: %q}
snowflake:
  lease: {store: local, ttl: 3s}
tokens: [{token: `+allToken+`}]
tags: [{name: id, kind: snowflake}, {name: order, kind: segment, store: local}]
`, file)
	a := testserver.Start(t, cfg)
	accepted := &countingListener{Listener: testserver.Listen(t)}
	static := testserver.StartOn(t, accepted, `snowflake: {lease: {worker: 900}}
tokens: [{token: `+allToken+`}]
tags: [{name: id, kind: snowflake}]
`)
	b := testserver.Start(t, cfg+"peers: ["+static.URL+", "+a.URL+"/]\n")
	for _, s := range []*testserver.Server{a, b, static} {
		testserver.WaitReady(t, s.URL)
	}
	addrs := func(f []control.Peer) []string {
		var out []string
		for _, p := range f {
			out = append(out, p.Address)
		}
		return out
	}

	fb := b.Fleet(ctx)
	if got, want := addrs(fb), []string{"self", a.URL, static.URL}; !slices.Equal(got, want) {
		t.Fatalf("b's fleet %q, want %q", got, want)
	}
	for _, p := range fb {
		if p.Reason != "" || p.Status == nil {
			t.Fatalf("%s: %s", p.Address, p.Reason)
		}
	}
	if !fb[1].Registered || fb[2].Registered {
		t.Errorf("registered: a %v, static %v; want true, false", fb[1].Registered, fb[2].Registered)
	}
	if fb[0].Status.Lease.Worker == fb[1].Status.Lease.Worker || fb[2].Status.Lease.Worker != 900 {
		t.Fatalf("workers %d, %d, %d", fb[0].Status.Lease.Worker, fb[1].Status.Lease.Worker, fb[2].Status.Lease.Worker)
	}
	if fb[1].Status.Address != a.URL || len(fb[1].Status.Tags) != 2 || fb[1].Status.Tags[1].Buffered == 0 {
		t.Fatalf("a's status %v", fb[1].Status)
	}
	if got, want := addrs(a.Fleet(ctx)), []string{"self", b.URL}; !slices.Equal(got, want) {
		t.Fatalf("a's fleet %q, want %q", got, want)
	}
	// A console refreshing its fleet page: b keeps the connection to static it opened
	// for the first view.
	before := accepted.n.Load()
	for range 10 {
		if p := b.Fleet(ctx)[2]; p.Reason != "" {
			t.Fatal(p.Reason)
		}
	}
	if n := accepted.n.Load() - before; n != 0 {
		t.Errorf("10 more fleet views opened %d more connections to a peer, want 0", n)
	}

	// A record of an instance that does not answer: listed, unreachable; gone once the
	// record expires.
	db, err := sql.Open("sqlite", file+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := registry.NewSQL(ctx, db, sqldb.SQLite, registry.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ghost := registry.Instance{ID: "ghost", URL: "http://127.0.0.1:1", Worker: 5, Started: time.Now()}
	if err := rs.Put(ctx, ghost, time.Minute); err != nil {
		t.Fatal(err)
	}
	fa := a.Fleet(ctx)
	if got, want := addrs(fa), []string{"self", ghost.URL, b.URL}; !slices.Equal(got, want) || fa[1].Reason != control.ReasonUnreachable || !fa[1].Registered {
		t.Fatalf("a's fleet with a ghost %q (ghost's reason %q), want %q", got, fa[1].Reason, want)
	}
	if err := rs.Put(ctx, ghost, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	testserver.WaitFor(t, "the ghost's record expiring", 10*time.Second, func() error {
		if got := addrs(a.Fleet(ctx)); slices.Contains(got, ghost.URL) {
			return fmt.Errorf("fleet %q", got)
		}
		return nil
	})

	// a shuts down: its record goes with it, and b lists it only as a peer of its
	// configuration, after static, unreachable.
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fb = b.Fleet(ctx)
	if got, want := addrs(fb), []string{"self", static.URL, a.URL}; !slices.Equal(got, want) || fb[2].Registered || fb[2].Reason != control.ReasonUnreachable {
		t.Fatalf("b's fleet after a's shutdown %q (a registered %v, reason %q), want %q", got, fb[2].Registered, fb[2].Reason, want)
	}
}

// TestTagStore: tags created at run time are rows of the tag store, served at once here
// and at start by another server on the store; a configured tag of the same name wins;
// bad names, starts and steps, tags that exist and a server without a tag store are
// refused; SetStep changes a segment tag's next block.
func TestTagStore(t *testing.T) {
	db := testserver.SQLite(t, "local")
	cfg := "stores:\n" + db + `
tags:
  - {name: order, kind: segment, store: local, step: 100}
  - {name: uuid, kind: uuid7}
tag_store: local
`
	a := testserver.Start(t, cfg)
	ctx := context.Background()
	if err := a.Admin().CreateSegmentTag(ctx, "test", "refund", 1000, 10); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		first, step int64
		want        error
	}{
		{"refund", 1, 10, control.ErrTagExists},
		{"order", 1, 10, control.ErrTagExists},
		{"uuid", 1, 10, control.ErrTagExists},
		{"bad name!", 1, 10, nil},
		{"x", 0, 10, nil},
		{"x", 1, 0, nil},
	} {
		err := a.Admin().CreateSegmentTag(ctx, "test", tc.name, tc.first, tc.step)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("CreateSegmentTag(%q, %d, %d) = %v, want %v", tc.name, tc.first, tc.step, err, tc.want)
		}
	}
	c := client(a.URL, "")
	if got, err := c.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "refund"})); err != nil || got.Msg.Id != 1000 {
		t.Fatalf("first ID of refund: %v, %v", got, err)
	}
	// Another server on the store serves it from the start, and the configured order
	// only once.
	b := testserver.Start(t, cfg)
	st := b.Status(nil)
	var names []string
	for _, ts := range st.Tags {
		names = append(names, ts.Name)
		if ts.Name == "refund" && (!ts.FromStore || ts.Store != "local") {
			t.Errorf("refund on the second server: %+v", ts)
		}
	}
	if want := []string{"order", "uuid", "refund"}; !slices.Equal(names, want) {
		t.Fatalf("second server's tags %v, want %v", names, want)
	}
	if got, err := client(b.URL, "").Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "refund"})); err != nil || got.Msg.Id <= 1000 {
		t.Fatalf("refund on the second server: %v, %v", got, err)
	}
	// SetStep: the next block has the step set.
	if err := b.Admin().SetStep(ctx, "test", "uuid", 5); !errors.Is(err, control.ErrNotSegment) {
		t.Errorf("SetStep of a uuid7 tag: %v", err)
	}
	if err := b.Admin().SetStep(ctx, "test", "nope", 5); !errors.Is(err, control.ErrUnknownTag) {
		t.Errorf("SetStep of an unknown tag: %v", err)
	}
	if err := b.Admin().SetStep(ctx, "test", "refund", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := client(b.URL, "").List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "refund", Count: 20})); err != nil {
		t.Fatal(err)
	}
	testserver.WaitFor(t, "a block of 7", 10*time.Second, func() error {
		for _, ts := range b.Status(nil).Tags {
			if ts.Name == "refund" {
				// The blocks after the change have its step (and may grow from it as
				// the List drains them quickly).
				for _, r := range ts.Reservations {
					if r.Step == 7 {
						return nil
					}
				}
				return fmt.Errorf("reservations %v", ts.Reservations)
			}
		}
		return errors.New("no refund")
	})
	// Without a tag store nothing is created.
	plain := testserver.Start(t, "tags:\n  - {name: uuid, kind: uuid7}\n")
	if err := plain.Admin().CreateSegmentTag(ctx, "test", "x", 1, 1); !errors.Is(err, control.ErrNoTagStore) {
		t.Errorf("without a tag store: %v", err)
	}
}

// TestStatusFigures: Status reports the lease's term, the server's clock, the IDs per
// second of every rate interval, and each segment tag's buffer halves and reservations.
func TestStatusFigures(t *testing.T) {
	s := testserver.Start(t, testConfig(t)+"console: {rate_interval: 100ms}\n")
	waitReady(t, s.URL)
	c := client(s.URL, allToken)
	ctx := context.Background()
	if _, err := c.List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order", Count: 250})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "id", Count: 1000})); err != nil {
		t.Fatal(err)
	}
	testserver.WaitFor(t, "a rate figure", 10*time.Second, func() error {
		if r := s.Status(nil).Rate; !slices.ContainsFunc(r, func(v float64) bool { return v > 0 }) {
			return fmt.Errorf("rates %v", r)
		}
		return nil
	})
	st := s.Status(nil)
	if st.Now == nil || st.RateInterval.AsDuration() != 100*time.Millisecond || len(st.Rate) > server.RateFigures {
		t.Errorf("clock %v, interval %v, %d figures", st.Now, st.RateInterval, len(st.Rate))
	}
	if l := st.Lease; l.Ttl.AsDuration() != 3*time.Second || l.Margin.AsDuration() != 300*time.Millisecond || l.Issued < 1000 {
		t.Errorf("lease %+v", l)
	}
	for _, ts := range st.Tags {
		if ts.Name != "order" {
			continue
		}
		if ts.Store != "local" || ts.FromStore || ts.Current+ts.Next != ts.Buffered || ts.CurrentSize < ts.Current || len(ts.Reservations) == 0 || ts.Reservations[0].Step != 100 {
			t.Errorf("order: %+v", ts)
		}
	}
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}
