package idem

import (
	"bufio"
	"bytes"
	"io"
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

// recorder buffers a handler's response so it can be stored before it is sent, up to a
// limit. Past the limit, or when the handler flushes or hijacks, it passes the response
// through to the client from then on (what it had buffered first), so memory stays within
// the limit whatever the response's size, and streams reach the client as they are
// written. Unwrap gives http.ResponseController the client's writer for deadlines.
type recorder struct {
	w      http.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
	limit  int
	mode   int    // buffering, or why the response is passed through
	warn   string // the Idempotency-Warning sent when passing through

	// The request body, read once for the fingerprint and given to the handler.
	inBuf []byte
	in    bodyReader
}

// bodyReader is the request body the handler reads: the bytes the middleware read.
type bodyReader struct{ bytes.Reader }

// Close implements io.Closer.
func (*bodyReader) Close() error { return nil }

// readBody reads up to limit+1 bytes of body into the recorder's buffer and sets the
// handler's reader to them.
func (r *recorder) readBody(body io.Reader, limit int64) ([]byte, error) {
	b := r.inBuf[:0]
	for int64(len(b)) <= limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):min(cap(b), int(limit)+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	r.inBuf = b
	r.in.Reset(b)
	return b, nil
}

func (r *recorder) reset(w http.ResponseWriter, limit int, warn string) {
	r.w, r.limit, r.warn = w, limit, warn
	r.status, r.mode = 0, buffering
	r.body.Reset()
	clear(r.header)
}

// Header implements http.ResponseWriter.
func (r *recorder) Header() http.Header { return r.header }

// WriteHeader implements http.ResponseWriter. Informational (1xx) statuses are sent
// through once passing, and dropped while buffering.
func (r *recorder) WriteHeader(status int) {
	switch {
	case r.mode == hijacked:
	case status < 200:
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
		if r.body.Len()+len(b) <= r.limit {
			if r.status == 0 {
				r.status = http.StatusOK
			}
			return r.body.Write(b)
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

// Hijack implements http.Hijacker: the handler takes the connection.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if r.mode == buffering && (r.status != 0 || r.body.Len() > 0) {
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

// Unwrap returns the client's writer, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

// pass switches to passing through, for why: it sends the header, the status if the handler
// set one, and the buffered body. Once passing it does nothing.
func (r *recorder) pass(why int) error {
	if r.mode != buffering {
		return nil
	}
	r.mode = why
	h := r.w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	h.Set(WarningHeader, r.warn)
	// The header map is the client's from now on, so that what the handler sets later
	// (trailers) reaches the client.
	r.header = h
	if r.status != 0 {
		r.w.WriteHeader(r.status)
	}
	if r.body.Len() > 0 {
		if r.status == 0 {
			r.status = http.StatusOK
		}
		_, err := r.w.Write(r.body.Bytes())
		r.body.Reset()
		return err
	}
	return nil
}

// passing reports whether the response went (or is going) to the client unbuffered.
func (r *recorder) passing() bool { return r.mode != buffering }

func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// send writes a buffered response to the client, with extra headers set over the
// handler's.
func (r *recorder) send() {
	h := r.w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	// No Content-Length: net/http computes it for a body written at once that fits its
	// buffer, and chunks a larger one.
	r.w.WriteHeader(r.statusCode())
	r.w.Write(r.body.Bytes())
}
