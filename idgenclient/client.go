// Package idgenclient is the Go client of idgen-server. A [Client] calls a fleet of
// servers, failing over from one that does not answer to the next; its [Snowflake] and
// [Segment] sources implement idgen.Source with a buffer that is refilled in the
// background (List and Range calls sized to the rate IDs are taken at), so the ORM
// plugins and generated ID types take remote IDs as they take a local generator:
//
//	c, err := idgenclient.New(idgenclient.Options{Addresses: []string{"http://ids-1:7070", "http://ids-2:7070"}, Token: token})
//	users, err := c.Snowflake(ctx, "user")   // idgen.Source with Layout()
//	orders, err := c.Segment(ctx, "order")   // idgen.Source with Timeless()
//	idgen.SetDefault(users)
//
// The generated API is in the packages idgenv1 and idgenv1connect beside this one, for
// callers who want the calls themselves.
//
// A buffered ID waits until it is asked for: a snowflake ID's time is when the server
// stamped it, up to a batch's lifetime (Options.Lead at the observed rate) before it is
// handed out, longer after a lull. IDs stay unique; batches from several servers
// interleave, so a source's IDs trend up rather than sort exactly by creation.
//
// No ID is handed out twice: every ID comes from one server answer, which the servers
// never give twice (leased worker IDs, store-reserved blocks), and leaves the buffer
// once, under its lock. An answer that is lost (a timeout, a server that dies mid-call)
// is not asked for again: its IDs are a gap. IDs left in the buffer when the process
// exits are a gap too.
package idgenclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// Defaults for Options fields left zero.
const (
	DefaultCallTimeout = 500 * time.Millisecond
	DefaultMinBatch    = 64
	DefaultMaxBatch    = 10_000
	DefaultRefill      = 0.2
	DefaultLead        = time.Second
	// DefaultDownFor is how long an address that failed is skipped when another may
	// answer, unless the server said to retry later (Retry-After).
	DefaultDownFor = time.Second
)

// Options configure a Client. Addresses is required.
type Options struct {
	// Addresses are the servers' base URLs ("http://127.0.0.1:7070", "https://ids:443").
	// Calls start at the next address in turn, and move on when one fails.
	Addresses []string
	// Token is the bearer token sent with every call, if any.
	Token string
	// HTTPClient makes the calls; nil means one with keep-alive connections (and
	// cleartext HTTP/2 for GRPC on http:// addresses).
	HTTPClient connect.HTTPClient
	// GRPC speaks gRPC instead of Connect's protocol (which runs on HTTP/1.1 too).
	GRPC bool
	// CallTimeout bounds each attempt on one address, DefaultCallTimeout if 0: a server
	// that accepts connections but does not answer (paused, overloaded) is left after
	// this long for the next one.
	CallTimeout time.Duration
	// MinBatch and MaxBatch bound the IDs a source asks for per call;
	// DefaultMinBatch and DefaultMaxBatch if 0. The server's cap may be lower.
	MinBatch, MaxBatch int
	// Refill is the fraction of the latest batch left in the buffer at which the next
	// is fetched in the background, in (0, 1); DefaultRefill if 0.
	Refill float64
	// Lead is how long a batch should last at the rate IDs are being taken; the batch
	// size follows it within MinBatch and MaxBatch. DefaultLead if 0.
	Lead time.Duration
}

// Client calls a fleet of idgen-servers. Safe for concurrent use.
type Client struct {
	o     Options
	addrs []address
	turn  atomic.Uint32
}

type address struct {
	url  string
	api  idgenv1connect.IDServiceClient
	down atomic.Int64 // UnixNano until which the address is skipped (if another may answer)
}

// New returns a Client of the servers at opts.Addresses. It does not call them.
func New(opts Options) (*Client, error) {
	o := opts
	if len(o.Addresses) == 0 {
		return nil, errors.New("idgenclient: no server address")
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MinBatch == 0 {
		o.MinBatch = DefaultMinBatch
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = max(DefaultMaxBatch, o.MinBatch)
	}
	if o.Refill == 0 {
		o.Refill = DefaultRefill
	}
	if o.Lead == 0 {
		o.Lead = DefaultLead
	}
	if o.CallTimeout < 0 || o.MinBatch < 1 || o.MaxBatch < o.MinBatch || o.Refill <= 0 || o.Refill >= 1 || o.Lead < 0 {
		return nil, fmt.Errorf("idgenclient: invalid options: call timeout %v, batch [%d, %d], refill %v, lead %v",
			o.CallTimeout, o.MinBatch, o.MaxBatch, o.Refill, o.Lead)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient(o.GRPC)
	}
	// Batches of IDs compress poorly and cost more CPU to gzip than they save on the
	// network of a fleet: the client does not ask for compressed answers.
	copts := []connect.ClientOption{connect.WithAcceptCompression("gzip", nil, nil)}
	if o.GRPC {
		copts = append(copts, connect.WithGRPC())
	}
	if o.Token != "" {
		copts = append(copts, connect.WithInterceptors(bearer("Bearer "+o.Token)))
	}
	c := &Client{o: o, addrs: make([]address, len(o.Addresses))}
	for i, a := range o.Addresses {
		if !strings.HasPrefix(a, "http://") && !strings.HasPrefix(a, "https://") {
			return nil, fmt.Errorf("idgenclient: address %q: want a base URL such as http://host:port", a)
		}
		a = strings.TrimRight(a, "/")
		c.addrs[i].url = a
		c.addrs[i].api = idgenv1connect.NewIDServiceClient(o.HTTPClient, a, copts...)
	}
	return c, nil
}

func defaultHTTPClient(grpc bool) *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	if grpc {
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		t.Protocols = &p
	}
	return &http.Client{Transport: t}
}

// bearer adds the Authorization header to every call.
type bearer string

func (b bearer) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", string(b))
		return next(ctx, req)
	}
}

func (b bearer) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, s connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, s)
		conn.RequestHeader().Set("Authorization", string(b))
		return conn
	}
}

func (b bearer) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// Error is a call that failed on every address: Errs has each address's error, in the
// order tried. Code is the Connect code of the last one.
type Error struct {
	Errs []error
}

// Error implements error.
func (e *Error) Error() string {
	parts := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		parts[i] = err.Error()
	}
	return "idgenclient: every server failed: " + strings.Join(parts, "; ")
}

// Unwrap returns the errors of every attempt.
func (e *Error) Unwrap() []error { return e.Errs }

// Code returns the Connect code of the last attempt.
func (e *Error) Code() connect.Code {
	if len(e.Errs) == 0 {
		return connect.CodeUnknown
	}
	return connect.CodeOf(e.Errs[len(e.Errs)-1])
}

// retryable reports whether another server may answer what this one did not: it was
// unavailable, did not answer in time, could not be reached, or dropped the connection
// under the call. connect-go reports a connection reset or closed by the server
// (ECONNRESET, EPIPE: a server killed or shut down) as CANCELED, the code of a caller's
// own cancellation; call returns before asking when the caller's context is done, so a
// CANCELED here is the server's.
func retryable(err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeUnknown, connect.CodeInternal,
		connect.CodeAborted, connect.CodeResourceExhausted, connect.CodeCanceled:
		return true
	}
	return false
}

// retryAfter reads the server's Retry-After hint in seconds, 0 if none.
func retryAfter(err error) time.Duration {
	var ce *connect.Error
	if errors.As(err, &ce) {
		if s, e := strconv.Atoi(ce.Meta().Get("Retry-After")); e == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return 0
}

// call runs fn on one address after another, starting at the next in turn and skipping
// those marked down while another may answer, until one succeeds, fails in a way no other
// server would change (a bad token, an unknown tag), or every one has failed.
func (c *Client) call(ctx context.Context, fn func(context.Context, idgenv1connect.IDServiceClient) error) error {
	n := len(c.addrs)
	start := int(c.turn.Add(1)) % n
	now := time.Now().UnixNano()
	order := make([]int, 0, n)
	var later []int
	for i := range n {
		j := (start + i) % n
		if c.addrs[j].down.Load() > now {
			later = append(later, j)
		} else {
			order = append(order, j)
		}
	}
	order = append(order, later...)
	var errs []error
	for _, j := range order {
		a := &c.addrs[j]
		actx, cancel := context.WithTimeout(ctx, c.o.CallTimeout)
		err := fn(actx, a.api)
		cancel()
		if err == nil {
			a.down.Store(0)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		errs = append(errs, fmt.Errorf("%s: %w", a.url, err))
		if !retryable(err) {
			break
		}
		d := retryAfter(err)
		if d == 0 {
			d = DefaultDownFor
		}
		a.down.Store(time.Now().Add(d).UnixNano())
	}
	return &Error{Errs: errs}
}

// Next returns one new ID of tag and its text.
func (c *Client) Next(ctx context.Context, tag string) (*v1.NextResponse, error) {
	var r *v1.NextResponse
	err := c.call(ctx, func(ctx context.Context, api idgenv1connect.IDServiceClient) error {
		res, err := api.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: tag}))
		if err == nil {
			r = res.Msg
		}
		return err
	})
	return r, err
}

// List returns n new IDs of tag (and their texts, for kinds that have them).
func (c *Client) List(ctx context.Context, tag string, n int) (*v1.ListResponse, error) {
	var r *v1.ListResponse
	err := c.call(ctx, func(ctx context.Context, api idgenv1connect.IDServiceClient) error {
		res, err := api.List(ctx, connect.NewRequest(&v1.ListRequest{Tag: tag, Count: int32(n)}))
		if err == nil {
			r = res.Msg
		}
		return err
	})
	return r, err
}

// Range returns up to n consecutive IDs of the segment tag tag, r.Start through
// r.Start+r.Count-1. A tag whose IDs are interleaved (tinyid's delta above 1) answers one
// ID a call; RangeStrided answers it a run at a time.
func (c *Client) Range(ctx context.Context, tag string, n int64) (*v1.RangeResponse, error) {
	return c.rng(ctx, &v1.RangeRequest{Tag: tag, Count: n})
}

// RangeStrided returns up to n IDs of the segment tag tag, every r.Stride-th: r.Start,
// r.Start+r.Stride, ... r.Start+(r.Count-1)*r.Stride, or r.Start through
// r.Start+r.Count-1 when r.Stride is 0 or 1. The IDs between those of a strided run
// belong to other databases (tinyid's delta and remainder): a caller must not use them.
// The Segment source reads its runs with it.
func (c *Client) RangeStrided(ctx context.Context, tag string, n int64) (*v1.RangeResponse, error) {
	return c.rng(ctx, &v1.RangeRequest{Tag: tag, Count: n, AcceptStride: true})
}

// rng makes a Range call.
func (c *Client) rng(ctx context.Context, req *v1.RangeRequest) (*v1.RangeResponse, error) {
	var r *v1.RangeResponse
	err := c.call(ctx, func(ctx context.Context, api idgenv1connect.IDServiceClient) error {
		res, err := api.Range(ctx, connect.NewRequest(req))
		if err == nil {
			r = res.Msg
		}
		return err
	})
	return r, err
}

// Describe returns what a server says of tag.
func (c *Client) Describe(ctx context.Context, tag string) (*v1.TagInfo, error) {
	var r *v1.TagInfo
	err := c.call(ctx, func(ctx context.Context, api idgenv1connect.IDServiceClient) error {
		res, err := api.DescribeTag(ctx, connect.NewRequest(&v1.DescribeTagRequest{Tag: tag}))
		if err == nil {
			r = res.Msg.Tag
		}
		return err
	})
	return r, err
}

// Status returns the status of the server at the i-th address (no failover: it is that
// server's status that is asked for).
func (c *Client) Status(ctx context.Context, i int) (*v1.StatusResponse, error) {
	if i < 0 || i >= len(c.addrs) {
		return nil, fmt.Errorf("idgenclient: no address %d", i)
	}
	res, err := c.addrs[i].api.Status(ctx, connect.NewRequest(&v1.StatusRequest{}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}
