package dataplane

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// limitListener serves at most cap(sem) connections at once: Accept waits for one to
// close before taking the next from the kernel's queue, so callers holding connections
// open cannot make the server hold more (and their file descriptors and goroutines).
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// LimitListener returns ln serving at most n connections at once (limits.max_connections):
// Accept waits for one to close before taking the next from the kernel's queue.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its place back when closed. It keeps the optional methods net/http
// looks for on a connection (see bufferedConn).
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite shuts down the writing side when the connection can.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom writes what r has, through the connection's own ReadFrom when it has one.
func (c *limitConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// bodyDeadline gives every request with a body limits.body_timeout to send it: a caller
// that sends its body slowly (before any token is checked: the API reads a call's body
// before its interceptors run) is cut off then, its connection closed (HTTP/1.1) or its
// stream ended (HTTP/2). The deadline is lifted once the body is read to its end, so a
// stream's answer (health Watch) may go on.
func (p *Plane) bodyDeadline(h http.Handler) http.Handler {
	d := p.cfg.Limits.BodyTimeout
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && d > 0 {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the body is read to its end.
type deadlineBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// tokenFirst refuses an API call without a valid token (or, for Status, a fleet
// signature) from its headers, in the call's own protocol (connect.ErrorWriter), before
// anything reads or inflates its body; the interceptor checks it again and puts the
// grant in the context.
func (p *Plane) tokenFirst(h http.Handler) http.Handler {
	if p.auth.Open() {
		return h
	}
	ew := connect.NewErrorWriter()
	prefix := "/" + idgenv1connect.IDServiceName + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A body declared too large is refused first, as before (Handler: 413).
		if strings.HasPrefix(r.URL.Path, prefix) && r.ContentLength <= int64(p.cfg.Limits.MaxRequestBytes) {
			authz := r.Header.Get("Authorization")
			_, ok := p.auth.Check(authz)
			if !ok && authz == "" && r.URL.Path == idgenv1connect.IDServiceStatusProcedure {
				ok = p.auth.CheckFleet(r.Header.Get(auth.FleetHeader))
			}
			if !ok {
				if r.ProtoMajor == 1 && r.ContentLength != 0 {
					// Else net/http reads the body (up to 256 KiB) before answering, to
					// keep the connection: the caller's unread body closes it instead.
					w.Header().Set("Connection", "close")
				}
				ew.Write(w, r, connect.NewError(connect.CodeUnauthenticated, auth.Refusal(r)))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
