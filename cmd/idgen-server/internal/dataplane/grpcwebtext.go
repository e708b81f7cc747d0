package dataplane

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
)

// gRPC-Web's text mode (application/grpc-web-text, the default of Google's grpc-web
// client) is gRPC-Web with the body in base64 both ways. connect-go serves only the
// binary mode, so withGRPCWebText translates: the request's body is decoded and its
// type made binary, the answer's body encoded and its type made text again.
const grpcWebText = "application/grpc-web-text"

// withGRPCWebText serves gRPC-Web's text mode through h, which serves the binary one.
func withGRPCWebText(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if !strings.HasPrefix(ct, grpcWebText) {
			h.ServeHTTP(w, r)
			return
		}
		r.Header.Set("Content-Type", "application/grpc-web"+strings.TrimPrefix(ct, grpcWebText))
		r.Header.Del("Content-Length")
		r.ContentLength = -1
		r.Body = &base64Reader{src: r.Body}
		tw := &base64Writer{ResponseWriter: w}
		h.ServeHTTP(tw, r)
		tw.Flush()
	})
}

// base64Reader decodes standard base64 in which every chunk a client sent may end in
// padding: it decodes quantum by quantum (4 characters, 3 bytes or fewer).
type base64Reader struct {
	src  io.ReadCloser
	in   []byte // characters read, not yet decoded (fewer than 4 after each decode)
	out  []byte // bytes decoded, not yet read
	done error
}

func (b *base64Reader) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.done != nil {
			if len(b.in) > 0 && b.done == io.EOF {
				b.in = nil
				return 0, base64.CorruptInputError(0)
			}
			return 0, b.done
		}
		var buf [1024]byte
		n, err := b.src.Read(buf[:])
		for _, c := range buf[:n] {
			if c == '\r' || c == '\n' {
				continue
			}
			b.in = append(b.in, c)
		}
		b.done = err
		q := len(b.in) / 4 * 4
		for i := 0; i < q; i += 4 {
			var d [3]byte
			m, err := base64.StdEncoding.Decode(d[:], b.in[i:i+4])
			if err != nil {
				b.done = err
				break
			}
			b.out = append(b.out, d[:m]...)
		}
		b.in = append(b.in[:0], b.in[q:]...)
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *base64Reader) Close() error { return b.src.Close() }

// base64Writer encodes the answer's body: whole quanta as it comes, the rest with
// padding at each Flush (connect-go flushes after each message of a stream, and the
// handler's end flushes), which clients decode chunk by chunk as they read.
type base64Writer struct {
	http.ResponseWriter
	wrote   bool
	pending []byte // fewer than 3 bytes not yet encoded
}

func (b *base64Writer) WriteHeader(code int) {
	if !b.wrote {
		b.wrote = true
		h := b.ResponseWriter.Header()
		if ct := h.Get("Content-Type"); strings.HasPrefix(ct, "application/grpc-web") {
			h.Set("Content-Type", grpcWebText+strings.TrimPrefix(ct, "application/grpc-web"))
		}
		h.Del("Content-Length")
	}
	b.ResponseWriter.WriteHeader(code)
}

func (b *base64Writer) Write(p []byte) (int, error) {
	if !b.wrote {
		b.WriteHeader(http.StatusOK)
	}
	b.pending = append(b.pending, p...)
	q := len(b.pending) / 3 * 3
	if q > 0 {
		out := make([]byte, base64.StdEncoding.EncodedLen(q))
		base64.StdEncoding.Encode(out, b.pending[:q])
		b.pending = append(b.pending[:0], b.pending[q:]...)
		if _, err := b.ResponseWriter.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is pending, padded, and flushes.
func (b *base64Writer) Flush() {
	if len(b.pending) > 0 {
		b.ResponseWriter.Write([]byte(base64.StdEncoding.EncodeToString(b.pending)))
		b.pending = b.pending[:0]
	}
	if f, ok := b.ResponseWriter.(http.Flusher); ok && b.wrote {
		f.Flush()
	}
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (b *base64Writer) Unwrap() http.ResponseWriter { return b.ResponseWriter }
