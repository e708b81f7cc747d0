package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// pki is a CA and the certificates it signed, written as PEM files.
type pki struct {
	dir  string
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newPKI(t *testing.T) *pki {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "idgen test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	p := &pki{dir: t.TempDir(), ca: ca, key: key, pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.write(t, "ca.pem", "CERTIFICATE", der)
	return p
}

func (p *pki) write(t *testing.T, name, typ string, der []byte) string {
	file := filepath.Join(p.dir, name)
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// issue makes a certificate for name (a server's 127.0.0.1, or a client) and returns its
// files and the tls.Certificate.
func (p *pki) issue(t *testing.T, name string, server bool) (certFile, keyFile string, cert tls.Certificate) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	if server {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile = p.write(t, name+".pem", "CERTIFICATE", der)
	keyFile = p.write(t, name+"-key.pem", "EC PRIVATE KEY", kder)
	cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// TestMutualTLS: with tls.client_ca, a client without a certificate signed by it is
// refused in the handshake; one with it gets IDs over HTTP/2 and HTTP/1.1.
func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	certFile, keyFile, _ := p.issue(t, "server", true)
	_, _, clientCert := p.issue(t, "client", false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("tls.yaml", []byte(`listen: `+ln.Addr().String()+`
tls: {cert: `+certFile+`, key: `+keyFile+`, client_ca: `+filepath.Join(p.dir, "ca.pem")+`}
tags: [{name: uuid, kind: uuid7}]
`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(context.Background(), cfg, discard())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Shutdown(context.Background())
		<-done
	})
	url := "https://" + ln.Addr().String()
	call := func(certs []tls.Certificate, h2 bool) error {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.pool, Certificates: certs}, ForceAttemptHTTP2: h2}
		defer tr.CloseIdleConnections()
		c := idgenv1connect.NewIDServiceClient(&http.Client{Transport: tr}, url)
		_, err := c.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "uuid"}))
		return err
	}
	if err := call(nil, true); err == nil {
		t.Fatal("a client without a certificate was served")
	}
	if err := call([]tls.Certificate{clientCert}, true); err != nil {
		t.Fatalf("HTTP/2 with a client certificate: %v", err)
	}
	if err := call([]tls.Certificate{clientCert}, false); err != nil {
		t.Fatalf("HTTP/1.1 with a client certificate: %v", err)
	}
	// A certificate from another CA is refused too.
	_, _, other := newPKI(t).issue(t, "stranger", false)
	if err := call([]tls.Certificate{other}, true); err == nil {
		t.Fatal("a client certificate of another CA was accepted")
	}
}
