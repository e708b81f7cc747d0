package server

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/idgenclient"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// PeerTimeout bounds Fleet's call to each peer, and its listing of the lease store.
const PeerTimeout = 2 * time.Second

// Peer is one instance of the fleet as Fleet found it: its Status, or why it did not
// answer.
type Peer struct {
	// Address is the instance's base URL ("self" for this one).
	Address string
	// Registered says the instance was found through the lease store (its record), not
	// only under peers.
	Registered bool
	Status     *v1.StatusResponse
	Err        error
}

// Fleet returns this server's status and that of every other instance: those recorded
// in the lease store this server shares with them (live records only: a stopped
// instance's record expires, a drained one's is removed), then those configured under
// peers and not found so, one entry per base URL. Each is asked at once with the first
// configured token that grants every tag: the fleet view of the console. Instances that
// do not answer within PeerTimeout have Err set; so does an entry named after the lease
// store when it cannot be listed.
func (s *Server) Fleet(ctx context.Context) []Peer {
	out := []Peer{{Address: "self", Status: s.Status(nil)}}
	seen := map[string]bool{urlKey(s.cfg.Advertise): true}
	if s.registry != nil {
		lctx, cancel := context.WithTimeout(ctx, PeerTimeout)
		found, err := s.registry.List(lctx)
		cancel()
		if err != nil {
			out = append(out, Peer{Address: "lease store " + s.registryStore, Err: err})
		}
		slices.SortFunc(found, func(a, b registry.Instance) int { return cmp.Compare(a.URL, b.URL) })
		for _, in := range found {
			if (s.reg != nil && in.ID == s.reg.ID()) || seen[urlKey(in.URL)] {
				continue
			}
			seen[urlKey(in.URL)] = true
			out = append(out, Peer{Address: in.URL, Registered: true})
		}
	}
	for _, addr := range s.cfg.Peers {
		if !seen[urlKey(addr)] {
			seen[urlKey(addr)] = true
			out = append(out, Peer{Address: addr})
		}
	}

	token := ""
	for _, t := range s.cfg.Tokens {
		if len(t.Tags) == 0 {
			token, _ = t.Secret()
			break
		}
	}
	var wg sync.WaitGroup
	for i := 1; i < len(out); i++ {
		p := &out[i]
		if p.Err != nil {
			continue
		}
		wg.Go(func() {
			c, err := idgenclient.New(idgenclient.Options{Addresses: []string{p.Address}, Token: token, CallTimeout: PeerTimeout, HTTPClient: s.peerClient()})
			if err != nil {
				p.Err = err
				return
			}
			p.Status, p.Err = c.Status(ctx, 0)
		})
	}
	wg.Wait()
	return out
}

// peerClient returns the HTTP client of Fleet's calls: one for the server's life, so a
// console refreshing its fleet page reuses connections instead of opening new ones each
// time.
func (s *Server) peerClient() *http.Client {
	s.peerOnce.Do(func() {
		s.peerHTTP = &http.Client{Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: PeerTimeout}).DialContext,
			TLSHandshakeTimeout: PeerTimeout,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     time.Minute,
		}}
	})
	return s.peerHTTP
}

// urlKey is the form of a base URL two instances are compared by: scheme and host are
// case-insensitive, a trailing slash is nothing.
func urlKey(s string) string {
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil {
		return s
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.Path
}
