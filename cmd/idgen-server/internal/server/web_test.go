package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// frame is a gRPC-Web frame of m.
func frame(m proto.Message) []byte {
	b, _ := proto.Marshal(m)
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))), b...)
}

// webAnswer reads a gRPC-Web answer: the messages' payloads and the status, from the
// headers (trailers-only) or the trailer frame.
func webAnswer(t *testing.T, res *http.Response, text bool) (msgs [][]byte, status string) {
	t.Helper()
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if text {
		var dec []byte
		for i := 0; i+4 <= len(body); i += 4 { // padded chunks, quantum by quantum
			d, err := base64.StdEncoding.DecodeString(string(body[i : i+4]))
			if err != nil {
				t.Fatalf("answer not base64: %v: %q", err, body)
			}
			dec = append(dec, d...)
		}
		body = dec
	}
	status = res.Header.Get("Grpc-Status")
	for len(body) >= 5 {
		n := binary.BigEndian.Uint32(body[1:5])
		payload := body[5 : 5+n]
		if body[0]&0x80 != 0 {
			for _, line := range strings.Split(string(payload), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "grpc-status") {
					status = strings.TrimSpace(v)
				}
			}
		} else {
			msgs = append(msgs, payload)
		}
		body = body[5+n:]
	}
	return msgs, status
}

// TestGRPCWebText: gRPC-Web's text mode (Google's grpc-web client's default) is
// served: the request's base64 may come in padded chunks, the answer is base64 of the
// binary mode's frames, its type the text one.
func TestGRPCWebText(t *testing.T) {
	s := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	f := frame(&v1.ListRequest{Tag: "usr", Count: 3})
	body := base64.StdEncoding.EncodeToString(f[:4]) + base64.StdEncoding.EncodeToString(f[4:])
	req, _ := http.NewRequest("POST", s.URL+"/idgen.v1.IDService/List", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc-web-text")
	req.Header.Set("Accept", "application/grpc-web-text")
	req.Header.Set("X-Grpc-Web", "1")
	req.Header.Set("Authorization", "Bearer "+allToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/grpc-web-text") {
		t.Errorf("Content-Type %q", ct)
	}
	msgs, status := webAnswer(t, res, true)
	if res.StatusCode != 200 || status != "0" || len(msgs) != 1 {
		t.Fatalf("%d, status %q, %d messages", res.StatusCode, status, len(msgs))
	}
	var r v1.ListResponse
	if err := proto.Unmarshal(msgs[0], &r); err != nil || len(r.Texts) != 3 || !strings.HasPrefix(r.Texts[0], "usr_") {
		t.Fatalf("answer %v %v", &r, err)
	}
}

// TestTooLarge: a request over max_request_bytes gets each protocol's own
// RESOURCE_EXHAUSTED, with or without a Content-Length: Connect's JSON error, gRPC-Web's
// grpc-status (binary and text), gRPC's trailers.
func TestTooLarge(t *testing.T) {
	s := testserver.Start(t, testConfig(t))
	waitReady(t, s.URL)
	big := &v1.NextRequest{Tag: strings.Repeat("x", 70<<10)} // the default limit is 64 KiB
	jsonBody, _ := json.Marshal(map[string]string{"tag": big.Tag})
	h2c := &http.Client{Transport: &http.Transport{Protocols: func() *http.Protocols {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		return &p
	}()}}
	for _, tc := range []struct {
		name, ct string
		body     []byte
		client   *http.Client
	}{
		{"connect-json", "application/json", jsonBody, http.DefaultClient},
		{"connect-proto", "application/proto", func() []byte { b, _ := proto.Marshal(big); return b }(), http.DefaultClient},
		{"grpc-web", "application/grpc-web+proto", frame(big), http.DefaultClient},
		{"grpc-web-text", "application/grpc-web-text", []byte(base64.StdEncoding.EncodeToString(frame(big))), http.DefaultClient},
		{"grpc", "application/grpc", frame(big), h2c},
	} {
		for _, length := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/content-length=%v", tc.name, length), func(t *testing.T) {
				var body io.Reader = bytes.NewReader(tc.body)
				if !length {
					body = io.MultiReader(body) // no length known: chunked
				}
				req, _ := http.NewRequest("POST", s.URL+"/idgen.v1.IDService/Next", body)
				req.Header.Set("Content-Type", tc.ct)
				req.Header.Set("Authorization", "Bearer "+allToken)
				if tc.name == "grpc" {
					req.Header.Set("Te", "trailers")
				}
				res, err := tc.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if length != (req.ContentLength > 0) {
					t.Fatalf("Content-Length %d", req.ContentLength)
				}
				switch tc.name {
				case "connect-json", "connect-proto":
					var e struct{ Code, Message string }
					err := json.NewDecoder(res.Body).Decode(&e)
					res.Body.Close()
					if err != nil || e.Code != "resource_exhausted" {
						t.Fatalf("%d %+v %v, want Connect's resource_exhausted", res.StatusCode, e, err)
					}
				case "grpc":
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					st := res.Trailer.Get("Grpc-Status")
					if st == "" {
						st = res.Header.Get("Grpc-Status")
					}
					if res.StatusCode != 200 || st != "8" {
						t.Fatalf("%d grpc-status %q, want 8 (RESOURCE_EXHAUSTED)", res.StatusCode, st)
					}
				default:
					_, st := webAnswer(t, res, tc.name == "grpc-web-text")
					if res.StatusCode != 200 || st != "8" {
						t.Fatalf("%d grpc-status %q, want 8 (RESOURCE_EXHAUSTED)", res.StatusCode, st)
					}
				}
			})
		}
	}
}
