package dataplane

import (
	"io"
	"net"
	"testing"
	"time"
)

// countingConn counts the reads that reach the connection; it keeps TCP's other
// methods (CloseWrite, ReadFrom).
type countingConn struct {
	*net.TCPConn
	reads int
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.reads++
	return c.TCPConn.Read(p)
}

type countingListener struct {
	net.Listener
	conns chan *countingConn
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &countingConn{TCPConn: c.(*net.TCPConn)}
	l.conns <- cc
	return cc, nil
}

// TestBufferedConn: an HTTP/2-style reader (a 9-byte header, then the payload, twice)
// costs one read of the connection for everything that arrived in one write, and the
// connection still half-closes and sends through ReadFrom.
func TestBufferedConn(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := countingListener{Listener: inner, conns: make(chan *countingConn, 1)}
	ln := bufferedListener{cl}
	defer ln.Close()
	client, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	client.SetDeadline(time.Now().Add(time.Minute))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	counted := <-cl.conns

	frames := []byte("HEADER-1:payload-oneHEADER-2:payload-two")
	if _, err := client.Write(frames); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for _, n := range []int{9, 11, 9, 11} {
		p := make([]byte, n)
		if _, err := io.ReadFull(c, p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p...)
	}
	if string(got) != string(frames) {
		t.Fatalf("read %q, want %q", got, frames)
	}
	if counted.reads != 1 {
		t.Errorf("%d reads of the connection for 4 frame reads of one write, want 1", counted.reads)
	}

	if _, err := c.(io.ReaderFrom).ReadFrom(io.LimitReader(zeros{}, 100)); err != nil {
		t.Fatal(err)
	}
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(client) // ends at the half-close
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 100 {
		t.Fatalf("client read %d bytes before EOF, want 100", len(rest))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
