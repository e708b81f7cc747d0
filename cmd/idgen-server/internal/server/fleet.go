package server

import (
	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"

	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// PeerTimeout bounds Fleet's call to each peer, and its listing of the lease store.
const PeerTimeout = 2 * time.Second

// MaxPeerStatusBytes caps the Status answer Fleet reads from a peer, compressed or not:
// a Status of some thousand tags fits; a peer (or a record pointing anywhere) that
// answers more costs this much memory and a row saying it answered badly, at most
// MaxFleet times a view.
const MaxPeerStatusBytes = 512 << 10

// MaxFleet caps the instances Fleet lists besides this one: a lease store full of
// records (written by mistake or on purpose) costs a bounded number of calls per view.
const MaxFleet = 64

// Reasons a Peer did not answer, as the console shows them: generic on purpose, since
// the fleet page must not tell its reader what a store's driver or a dial to an
// arbitrary address said (the cause is in the server's log).
const (
	ReasonUnreachable  = "unreachable"
	ReasonRefused      = "refused the fleet signature"
	ReasonStore        = "lease store unreadable"
	ReasonBadAnswer    = "answered with an error"
	ReasonNoPermission = "refused the Status call"
	// ReasonMismatch: the answer names another address than the one called, or another
	// worker ID than the instance's record: a peer posing as another instance.
	ReasonMismatch = "answered as another instance"
)

// Peer is one instance of the fleet as Fleet found it: its Status, or why it did not
// answer.
type Peer struct {
	// Address is the instance's base URL ("self" for this one).
	Address string
	// Registered says the instance was found through the lease store (its record), not
	// only under peers.
	Registered bool
	Status     *v1.StatusResponse
	// Reason says why Status is nil (one of the Reason constants), "" when it is set.
	// The cause itself is logged, never carried here.
	Reason string

	worker int64 // the worker ID of the instance's record, -1 without one
}

// Fleet returns this server's status and that of every other instance: those recorded
// in the lease store this server shares with them (live records only: a stopped
// instance's record expires, a drained one's is removed), then those configured under
// peers and not found so, one entry per base URL, at most MaxFleet besides this one.
// Each is asked at once for its Status, signed with the fleet key (auth.FleetHeader) and
// never with a token: an instance accepts the signature only when it names the URL the
// instance advertises, so peers must be listed by their advertise URL. Instances that
// do not answer within PeerTimeout have Reason set; so does an entry named after the
// lease store when it cannot be listed. Records whose URL is not a base URL are skipped.
func (s *Server) Fleet(ctx context.Context) []Peer {
	out := []Peer{{Address: "self", Status: s.Status(nil)}}
	seen := map[string]bool{auth.URLKey(s.cfg.Advertise): true}
	dropped := 0
	add := func(p Peer) {
		if len(out) > MaxFleet {
			dropped++
			return
		}
		out = append(out, p)
	}
	if s.registry != nil {
		lctx, cancel := context.WithTimeout(ctx, PeerTimeout)
		found, err := s.registry.List(lctx)
		cancel()
		switch {
		case errors.Is(err, registry.ErrUndecodable):
			// The others are listed: one bad record does not hide the fleet.
			s.log.Warn("fleet: skipping records that do not decode", "store", s.registryStore, "err", err)
		case err != nil:
			s.log.Warn("fleet: listing the servers' records", "store", s.registryStore, "err", err)
			out = append(out, Peer{Address: "lease store " + s.registryStore, Reason: ReasonStore})
		}
		slices.SortFunc(found, func(a, b registry.Instance) int { return cmp.Compare(a.URL, b.URL) })
		for _, in := range found {
			if (s.reg != nil && in.ID == s.reg.ID()) || seen[auth.URLKey(in.URL)] {
				continue
			}
			u, err := config.BaseURL(in.URL)
			if err != nil {
				s.log.Warn("fleet: skipping a record whose URL is not a base URL", "store", s.registryStore, "instance", in.ID, "err", err)
				continue
			}
			seen[auth.URLKey(u)] = true
			add(Peer{Address: u, Registered: true, worker: in.Worker})
		}
	}
	for _, addr := range s.cfg.Peers {
		if !seen[auth.URLKey(addr)] {
			seen[auth.URLKey(addr)] = true
			add(Peer{Address: addr, worker: -1})
		}
	}
	if dropped > 0 {
		s.log.Warn("fleet: too many instances, the rest not listed", "max", MaxFleet, "dropped", dropped)
	}

	var key []byte
	if s.auth.HasFleetKey() {
		key = s.auth.FleetKey()
	}
	var wg sync.WaitGroup
	for i := 1; i < len(out); i++ {
		p := &out[i]
		if p.Reason != "" {
			continue
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, PeerTimeout)
			defer cancel()
			req := connect.NewRequest(&v1.StatusRequest{})
			if key != nil {
				req.Header().Set(auth.FleetHeader, auth.FleetSignature(key, p.Address, time.Now().UnixMilli()))
			}
			res, err := idgenv1connect.NewIDServiceClient(s.peerClient(), p.Address, connect.WithReadMaxBytes(MaxPeerStatusBytes)).Status(cctx, req)
			if err != nil {
				p.Reason = peerReason(err)
				s.log.Warn("fleet: peer did not answer", "peer", p.Address, "reason", p.Reason, "err", err)
				return
			}
			if why := p.mismatch(res.Msg); why != "" {
				p.Reason = ReasonMismatch
				s.log.Warn("fleet: peer answered as another instance", "peer", p.Address, "why", why)
				return
			}
			p.Status = res.Msg
		})
	}
	wg.Wait()
	return out
}

// peerReason is the generic reason shown for a Status call that failed with err.
func peerReason(err error) string {
	switch connect.CodeOf(err) {
	case connect.CodeUnauthenticated:
		return ReasonRefused
	case connect.CodePermissionDenied:
		return ReasonNoPermission
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeCanceled, connect.CodeUnknown:
		return ReasonUnreachable
	}
	return ReasonBadAnswer
}

// peerClient returns the HTTP client of Fleet's calls: one for the server's life, so a
// console refreshing its fleet page reuses connections instead of opening new ones each
// time. It follows no redirect (a peer's 3xx is its answer, an error: the call, its
// signature and a Referer go nowhere else), uses no proxy from the environment, and
// bounds each step by PeerTimeout besides the call's own deadline.
func (s *Server) peerClient() *http.Client {
	s.peerOnce.Do(func() {
		s.peerHTTP = &http.Client{
			Transport: boundedBodies{&http.Transport{
				DialContext:            (&net.Dialer{Timeout: PeerTimeout}).DialContext,
				TLSHandshakeTimeout:    PeerTimeout,
				ResponseHeaderTimeout:  PeerTimeout,
				MaxResponseHeaderBytes: 16 << 10,
				MaxIdleConnsPerHost:    2,
				IdleConnTimeout:        time.Minute,
			}},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       PeerTimeout,
		}
	})
	return s.peerHTTP
}

// errPeerTooLarge ends the read of a peer's answer longer than MaxPeerStatusBytes.
var errPeerTooLarge = errors.New("server: the peer's answer is longer than MaxPeerStatusBytes")

// boundedBodies cuts every answer's body at MaxPeerStatusBytes (and some bytes of
// framing): connect's own limit reports an answer too large but reads it to its end
// first, which a hostile peer makes endless.
type boundedBodies struct{ rt http.RoundTripper }

func (b boundedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := b.rt.RoundTrip(r)
	if err == nil {
		res.Body = &boundedBody{ReadCloser: res.Body, left: MaxPeerStatusBytes + 4<<10}
	}
	return res, err
}

// boundedBody is a body that fails once left bytes are read.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errPeerTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// mismatch says how st is not the Status of the instance p names, "" when it is: its
// address must be the one called, and its worker ID the record's (when both hold one).
func (p *Peer) mismatch(st *v1.StatusResponse) string {
	if auth.URLKey(st.GetAddress()) != auth.URLKey(p.Address) {
		return "address " + st.GetAddress()
	}
	if w := st.GetLease().GetWorker(); p.worker >= 0 && st.GetLease() != nil && w >= 0 && w != p.worker {
		return "worker " + strconv.FormatInt(w, 10) + ", recorded " + strconv.FormatInt(p.worker, 10)
	}
	return ""
}
