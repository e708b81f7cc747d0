package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"connectrpc.com/connect"

	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// constantEnv names the address this test binary serves the constant handler on when
// re-run as BenchmarkTransport's "constant" server.
const constantEnv = "IDGEN_BENCH_CONSTANT_SERVE"

// The limits of idgen-server's defaults, which the constant handler checks as the
// server does.
const (
	maxCount        = 100_000
	maxRequestBytes = 64 << 10
)

// constantID is the constant handler's answer: a snowflake ID of today's size (18
// digits), so that the constant answers carry as many bytes as the server's (a varint
// of 9 bytes, 18 digits of text) and the ratio measures the server's work, not a
// shorter answer.
const (
	constantID   = 255471898664632320
	constantText = "255471898664632320"
)

// constantTags are the tags of startServer's configuration.
var constantTags = map[string]bool{"id": true, "order": true}

// constantAPI answers Next, List and Range with constants after the checks a call gets
// from idgen-server (a bearer token when one is set, a known tag, a count in range):
// the benchmark's baseline, the transport's own cost with no ID issued. It lives here,
// never in idgen-server, whose every answer is a unique ID.
type constantAPI struct {
	idgenv1connect.UnimplementedIDServiceHandler
}

func checkTag(tag string) error {
	if !constantTags[tag] {
		return connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown tag %q", tag))
	}
	return nil
}

func checkCount(n int64) error {
	if n < 1 || n > maxCount {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("count %d out of range [1, %d]", n, maxCount))
	}
	return nil
}

func (constantAPI) Next(_ context.Context, req *connect.Request[v1.NextRequest]) (*connect.Response[v1.NextResponse], error) {
	if err := checkTag(req.Msg.Tag); err != nil {
		return nil, err
	}
	return connect.NewResponse(&v1.NextResponse{Id: constantID, Text: constantText}), nil
}

func (constantAPI) List(_ context.Context, req *connect.Request[v1.ListRequest]) (*connect.Response[v1.ListResponse], error) {
	if err := checkCount(int64(req.Msg.Count)); err != nil {
		return nil, err
	}
	if err := checkTag(req.Msg.Tag); err != nil {
		return nil, err
	}
	return connect.NewResponse(&v1.ListResponse{Ids: make([]int64, req.Msg.Count)}), nil
}

func (constantAPI) Range(_ context.Context, req *connect.Request[v1.RangeRequest]) (*connect.Response[v1.RangeResponse], error) {
	if err := checkCount(req.Msg.Count); err != nil {
		return nil, err
	}
	if err := checkTag(req.Msg.Tag); err != nil {
		return nil, err
	}
	return connect.NewResponse(&v1.RangeResponse{Start: 1, Count: req.Msg.Count}), nil
}

// grantKey is the context key of the caller's grant.
type grantKey struct{}

// bearer does what idgen-server's token interceptor does with startServer's open
// configuration: read the Authorization header and put the caller's grant (every tag)
// in the call's context.
func bearer() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			_ = req.Header().Get("Authorization")
			return next(context.WithValue(ctx, grantKey{}, "open"), req)
		}
	})
}

// serveConstant serves the constant handler at addr until killed, as idgen-server
// serves its API: Connect, gRPC and gRPC-Web from connect-go's handler with the same
// options, Leaf's snowflake path, HTTP/1.1 and cleartext HTTP/2, a read buffer on each
// connection.
func serveConstant(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle(idgenv1connect.NewIDServiceHandler(constantAPI{},
		connect.WithReadMaxBytes(maxRequestBytes),
		connect.WithCompressMinBytes(16<<10),
		connect.WithInterceptors(bearer()),
	))
	mux.HandleFunc("GET /api/snowflake/get/{tag}", func(w http.ResponseWriter, r *http.Request) {
		if err := checkTag(r.PathValue("tag")); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Write([]byte(constantText))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ready\n")) })
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
			mux.ServeHTTP(w, r)
		}),
		Protocols:         &p,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintln(os.Stderr, srv.Serve(bufferedListener{ln}))
	os.Exit(1)
}

// bufferedListener gives each connection a read buffer, as idgen-server's does, so
// that HTTP/2's small reads cost the constant handler what they cost the server.
type bufferedListener struct{ net.Listener }

func (l bufferedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 4<<10)}, nil
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *bufferedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}
