package idemtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// Run checks the contract of idem.Store on s, which must hold no records, as subtests of
// t: a claim, its completion under its token only, and the replay of the stored status,
// header and body; release under the token only; a claim taken over after its lock
// timeout, its old holder refused; a record's TTL, and Purge removing what is over and
// nothing else; keys with braces kept apart (no store may read them as anything but
// bytes); and exactly one claim among 50 callers racing for a key. The timing steps use
// locks and TTLs of 100 ms: a store keeping milliseconds rounds them up (package millis).
func Run(t *testing.T, s idem.Store) {
	ctx := context.Background()
	key := func(k string) string { return "idemtest:" + k }
	t.Run("claim, complete, replay", func(t *testing.T) {
		tok, held, err := s.Claim(ctx, key("a"), "fp-a", time.Minute)
		if err != nil || tok == "" || held != nil {
			t.Fatalf("first claim: %q %v %v", tok, held, err)
		}
		tok2, held, err := s.Claim(ctx, key("a"), "fp-other", time.Minute)
		if err != nil || tok2 != "" || held == nil || held.State != idem.InProgress || held.Fingerprint != "fp-a" {
			t.Fatalf("second claim: %q %+v %v", tok2, held, err)
		}
		resp := idem.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "X-Order": {"o1"}}, Body: []byte(`{"id":"o1"}`)}
		if err := s.Complete(ctx, key("a"), "not-the-token", resp, time.Hour); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("complete with another token: %v", err)
		}
		if err := s.Complete(ctx, key("a"), tok, resp, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, key("a"), tok, resp, time.Hour); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("completing twice: %v", err)
		}
		_, held, err = s.Claim(ctx, key("a"), "fp-a", time.Minute)
		if err != nil || held == nil || held.State != idem.Completed || held.Response == nil {
			t.Fatalf("claim of a completed key: %+v %v", held, err)
		}
		r := held.Response
		if r.Status != 201 || string(r.Body) != `{"id":"o1"}` || r.Header.Get("X-Order") != "o1" || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("replayed response %+v", r)
		}
		got, err := s.Get(ctx, key("a"))
		if err != nil || got.State != idem.Completed || got.ExpiresAt.Before(time.Now().Add(50*time.Minute)) {
			t.Fatalf("Get: %+v %v", got, err)
		}
		if _, err := s.Get(ctx, key("absent")); !errors.Is(err, idem.ErrNotFound) {
			t.Fatalf("Get of an absent key: %v", err)
		}
	})
	t.Run("release", func(t *testing.T) {
		tok, _, err := s.Claim(ctx, key("r"), "fp", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, key("r"), "other"); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("release with another token: %v", err)
		}
		if err := s.Release(ctx, key("r"), tok); err != nil {
			t.Fatal(err)
		}
		tok2, held, err := s.Claim(ctx, key("r"), "fp2", time.Minute)
		if err != nil || tok2 == "" || held != nil {
			t.Fatalf("claim after release: %q %+v %v", tok2, held, err)
		}
		if err := s.Release(ctx, key("r"), tok); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("an old token released the new claim: %v", err)
		}
	})
	t.Run("lock timeout", func(t *testing.T) {
		dead, _, err := s.Claim(ctx, key("l"), "fp", 100*time.Millisecond)
		if err != nil || dead == "" {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
		tok, held, err := s.Claim(ctx, key("l"), "fp", time.Minute)
		if err != nil || tok == "" || held != nil {
			t.Fatalf("claim after the lock timeout: %q %+v %v", tok, held, err)
		}
		if err := s.Complete(ctx, key("l"), dead, idem.Response{Status: 200}, time.Hour); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("the dead holder completed: %v", err)
		}
		if err := s.Release(ctx, key("l"), dead); !errors.Is(err, idem.ErrNotHolder) {
			t.Fatalf("the dead holder released: %v", err)
		}
	})
	t.Run("ttl and purge", func(t *testing.T) {
		tok, _, _ := s.Claim(ctx, key("t"), "fp", time.Minute)
		if err := s.Complete(ctx, key("t"), tok, idem.Response{Status: 200}, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		s.Claim(ctx, key("p"), "fp", 100*time.Millisecond)
		time.Sleep(250 * time.Millisecond)
		n, err := s.Purge(ctx)
		if err != nil || n < 2 {
			t.Fatalf("purged %d, %v; want at least the 2 expired", n, err)
		}
		if _, err := s.Get(ctx, key("t")); !errors.Is(err, idem.ErrNotFound) {
			t.Fatalf("expired record still there: %v", err)
		}
		if _, err := s.Get(ctx, key("a")); err != nil {
			t.Fatalf("purge removed a live record: %v", err)
		}
	})
	t.Run("keys with braces", func(t *testing.T) {
		// Distinct keys are distinct records whatever a store makes of their names
		// (redisidem keeps braces from becoming Redis Cluster hash tags).
		keys := []string{"{x}", "{}{x}", "{}", "}{", "x{", "x}", "{x", "{}x", "x", "%7Bx%7D", "a{b}c{d}"}
		for _, k := range keys {
			if tok, held, err := s.Claim(ctx, key("b"+k), "fp "+k, time.Minute); err != nil || tok == "" {
				t.Fatalf("claim of %q: %q %+v %v; want a claim of its own", "b"+k, tok, held, err)
			}
		}
		for _, k := range keys {
			if rec, err := s.Get(ctx, key("b"+k)); err != nil || rec.Fingerprint != "fp "+k || rec.Key != key("b"+k) {
				t.Errorf("Get(%q) = %+v, %v", "b"+k, rec, err)
			}
		}
	})
	t.Run("one claim among many", func(t *testing.T) {
		const callers = 50
		tokens := make([]string, callers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range callers {
			wg.Go(func() {
				<-start
				tok, _, err := s.Claim(ctx, key("c"), fmt.Sprint("fp", i), time.Minute)
				if err != nil {
					t.Error(err)
				}
				tokens[i] = tok
			})
		}
		close(start)
		wg.Wait()
		n := 0
		for _, tok := range tokens {
			if tok != "" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d callers claimed the key, want 1", n)
		}
	})
}
