package idem

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"net"
	"net/http"
)

// Why a recorder stopped buffering and passed the response through.
const (
	buffering = iota
	tooLarge  // the body passed the limit
	flushed   // the handler flushed (streaming, server-sent events)
	hijacked  // the handler took the connection
)

// inline is the size of the request and response bodies a work holds without another
// allocation.
const inline = 512

// recorder buffers a handler's response so it can be stored before it is sent, up to a
// limit. Past the limit, or when the handler flushes or hijacks, it passes the response
// through to the client from then on (what it had buffered first), so memory stays within
// the limit whatever the response's size, and streams reach the client as they are
// written. Unwrap gives http.ResponseController the client's writer for deadlines.
//
// The header map is the client's own (w.Header()): nothing reaches the client before
// WriteHeader on w, which the recorder calls only when it sends, so buffering needs no map
// of its own, and what is stored is what the client gets, in both modes.
//
// A recorder belongs to one request (it lives in the request's work, never pooled), so a
// handler that misuses it after returning touches nothing of another request.
type recorder struct {
	w      http.ResponseWriter
	status int
	body   []byte
	limit  int
	mode   int    // buffering, or why the response is passed through
	warn   string // the Idempotency-Warning sent when passing through
	arr    [inline]byte
}

func (r *recorder) init(w http.ResponseWriter, limit int, warn string) {
	r.w, r.limit, r.warn = w, limit, warn
	r.body = r.arr[:0]
}

// bodyReader is the request body the handler reads: the bytes the middleware read.
type bodyReader struct {
	bytes.Reader
	arr [inline]byte
}

// Close implements io.Closer.
func (*bodyReader) Close() error { return nil }

// read reads up to limit+1 bytes of body and sets the reader to them.
func (br *bodyReader) read(body io.Reader, limit int64) ([]byte, error) {
	max := int(min(limit, math.MaxInt32-1)) + 1
	b := br.arr[:0]
	for len(b) < max {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):min(cap(b), max)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	br.Reset(b)
	return b, nil
}

// Header implements http.ResponseWriter.
func (r *recorder) Header() http.Header { return r.w.Header() }

// WriteHeader implements http.ResponseWriter. Informational statuses (1xx but 101, which
// net/http treats as final) are sent through once passing, and dropped while buffering.
func (r *recorder) WriteHeader(status int) {
	switch {
	case r.mode == hijacked:
	case status < 200 && status != http.StatusSwitchingProtocols:
		if r.mode != buffering {
			r.w.WriteHeader(status)
		}
	case r.status == 0:
		r.status = status
		if r.mode != buffering {
			r.w.WriteHeader(status)
		}
	}
}

// Write implements http.ResponseWriter.
func (r *recorder) Write(b []byte) (int, error) {
	switch r.mode {
	case hijacked:
		return 0, http.ErrHijacked
	case buffering:
		if r.status == 0 {
			r.status = http.StatusOK
		}
		if len(r.body)+len(b) <= r.limit {
			r.body = append(r.body, b...)
			return len(b), nil
		}
		if err := r.pass(tooLarge); err != nil {
			return 0, err
		}
	}
	return r.w.Write(b)
}

// Flush implements http.Flusher.
func (r *recorder) Flush() { r.FlushError() }

// FlushError flushes what the handler wrote to the client; http.ResponseController.Flush
// calls it.
func (r *recorder) FlushError() error {
	if r.mode == hijacked {
		return http.ErrHijacked
	}
	if err := r.pass(flushed); err != nil {
		return err
	}
	return http.NewResponseController(r.w).Flush()
}

// Hijack implements http.Hijacker: the handler takes the connection. Where the client's
// writer cannot be hijacked (HTTP/2), it fails before anything is sent.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if !canHijack(r.w) {
		return nil, nil, http.ErrNotSupported
	}
	if r.mode == buffering && (r.status != 0 || len(r.body) > 0) {
		if err := r.pass(flushed); err != nil {
			return nil, nil, err
		}
	}
	c, rw, err := http.NewResponseController(r.w).Hijack()
	if err == nil {
		r.mode = hijacked
	}
	return c, rw, err
}

// canHijack reports whether w, or a writer it unwraps to, is an http.Hijacker.
func canHijack(w http.ResponseWriter) bool {
	for {
		if _, ok := w.(http.Hijacker); ok {
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
}

// Unwrap returns the client's writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

// pass switches to passing through, for why: it sends the header with the status (200 if
// the handler set none: that is what the client sees, so it is what is recorded), and the
// buffered body. Once passing it does nothing.
func (r *recorder) pass(why int) error {
	if r.mode != buffering {
		return nil
	}
	r.mode = why
	r.w.Header().Set(WarningHeader, r.warn)
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.w.WriteHeader(r.status)
	if len(r.body) > 0 {
		_, err := r.w.Write(r.body)
		r.body = r.arr[:0]
		return err
	}
	return nil
}

// passing reports whether the response went (or is going) to the client unbuffered.
func (r *recorder) passing() bool { return r.mode != buffering }

// hijacked reports whether the handler took the connection.
func (r *recorder) hijacked() bool { return r.mode == hijacked }

func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// send writes a buffered response to the client. No Content-Length: net/http computes it
// for a body written at once that fits its buffer, and chunks a larger one.
func (r *recorder) send() {
	r.w.WriteHeader(r.statusCode())
	r.w.Write(r.body)
}
