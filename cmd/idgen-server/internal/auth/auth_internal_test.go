package auth

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
)

// TestDerivedKeys: the session and fleet keys are PBKDF2 derivations of the token's
// secret, one per use, never the plain HMAC a stolen cookie would let anyone test token
// guesses against at HMAC speed; a token of some tags makes no fleet key; no token, none.
func TestDerivedKeys(t *testing.T) {
	const secret = "all-tags-token-0123456789"
	a, err := New(&config.Config{Advertise: "http://idgen-1:7070", Tokens: []config.Token{
		{Name: "some", Token: "some-tags-token-0123456789", Tags: []string{"id"}},
		{Name: "all", Token: secret},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, session, _ := a.SessionKey("all")
	want, _ := pbkdf2.Key(sha256.New, secret, []byte(sessionKeyLabel), KeyIterations, 32)
	plain := hmac.New(sha256.New, []byte(secret))
	plain.Write([]byte(sessionKeyLabel))
	if !bytes.Equal(session, want) || bytes.Equal(session, plain.Sum(nil)) {
		t.Errorf("session key %x, want the PBKDF2 derivation %x", session, want)
	}
	fleet, _ := pbkdf2.Key(sha256.New, secret, []byte(fleetKeyLabel), KeyIterations, 32)
	if !bytes.Equal(a.fleetKey(), fleet) || bytes.Equal(a.fleetKey(), session) {
		t.Errorf("fleet key %x, want %x (and not the session key)", a.fleetKey(), fleet)
	}
	sig := FleetSignature(a.fleetKey(), "http://IDGEN-1:7070/", time.Now().UnixMilli())
	if !a.CheckFleet(sig) {
		t.Error("a signature for this server's URL written otherwise (case, slash) refused")
	}
	some, _ := New(&config.Config{Tokens: []config.Token{{Token: "some-tags-token-0123456789", Tags: []string{"id"}}}})
	open, _ := New(&config.Config{})
	if some.fleetKey != nil || open.fleetKey != nil || open.CheckFleet(sig) {
		t.Error("a fleet key without a token granting every tag")
	}
}

// BenchmarkDeriveKey measures one derivation: KeyIterations is chosen for 20-50 ms.
func BenchmarkDeriveKey(b *testing.B) {
	for b.Loop() {
		deriveKey("all-tags-token-0123456789", fleetKeyLabel)
	}
}
