package dataplane

import (
	"bufio"
	"io"
	"net"
)

// bufferedListener gives each accepted connection a read buffer, so a reader asking
// for a few bytes at a time (HTTP/2's framer: 9 bytes of frame header, then the
// payload) costs one system call for everything that has arrived, not one a read.
type bufferedListener struct{ net.Listener }

// BufferedListener returns ln giving each accepted connection a read buffer: for a
// plain (not TLS) listener, whose HTTP/2 framer would otherwise cost a system call for
// each frame header and each payload.
func BufferedListener(ln net.Listener) net.Listener { return bufferedListener{ln} }

func (l bufferedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 4<<10)}, nil
}

// bufferedConn reads through r. It keeps the optional methods net/http looks for on
// a connection: CloseWrite (a clean close after an error response) and ReadFrom
// (sendfile for a response body).
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// CloseWrite shuts down the writing side when the connection can.
func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom writes what r has, through the connection's own ReadFrom when it has one.
func (c *bufferedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}
