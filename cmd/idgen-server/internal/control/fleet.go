package control

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// PeerTimeout bounds List's call to each peer, and its listing of the lease store.
const PeerTimeout = 2 * time.Second

// MaxPeerStatusBytes caps the Status answer List reads from a peer, compressed or not:
// a Status of some thousand tags fits; a peer (or a record pointing anywhere) that
// answers more costs this much memory and a row saying it answered badly, at most
// MaxFleet times a view.
const MaxPeerStatusBytes = 512 << 10

// MaxFleet caps the instances List lists besides this one: a lease store full of
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

// Fleet lists the instances of a fleet and asks each for its Status, for the console's
// fleet page. Set its fields before the first List; safe for concurrent use then. Close
// it when the server stops.
type Fleet struct {
	// Advertise is this instance's base URL (config advertise), never listed as a peer.
	Advertise string
	// Peers are the base URLs configured under peers.
	Peers []string
	// Registry holds the records of the servers sharing the lease store named
	// RegistryStore; nil without one.
	Registry      registry.Store
	RegistryStore string
	// SelfID is this instance's record ID in Registry, "" when it has none.
	SelfID string
	// Status returns this instance's Status, as a grant of every tag sees it.
	Status func() *v1.StatusResponse
	// Key returns the fleet key Status calls are signed with, nil without one.
	Key func() []byte
	// Log takes why a peer did not answer, which Peer never carries.
	Log *slog.Logger

	// once makes client, the one HTTP client of List's calls (its connections kept
	// alive between page views, closed by Close).
	once   sync.Once
	client *http.Client
}

// Peer is one instance of the fleet as List found it: its Status, or why it did not
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

// List returns this instance's status and that of every other instance: those recorded
// in the lease store this server shares with them (live records only: a stopped
// instance's record expires, a drained one's is removed), then those configured under
// peers and not found so, one entry per base URL, at most MaxFleet besides this one.
// Each is asked at once for its Status, signed with the fleet key (auth.FleetHeader) and
// never with a token: an instance accepts the signature only when it names the URL the
// instance advertises, so peers must be listed by their advertise URL. Instances that
// do not answer within PeerTimeout have Reason set; so does an entry named after the
// lease store when it cannot be listed. Records whose URL is not a base URL are skipped.
func (f *Fleet) List(ctx context.Context) []Peer {
	out := []Peer{{Address: "self", Status: f.Status()}}
	seen := map[string]bool{auth.URLKey(f.Advertise): true}
	dropped := 0
	add := func(p Peer) {
		if len(out) > MaxFleet {
			dropped++
			return
		}
		out = append(out, p)
	}
	if f.Registry != nil {
		lctx, cancel := context.WithTimeout(ctx, PeerTimeout)
		found, err := f.Registry.List(lctx)
		cancel()
		switch {
		case errors.Is(err, registry.ErrUndecodable):
			// The others are listed: one bad record does not hide the fleet.
			f.Log.Warn("fleet: skipping records that do not decode", "store", f.RegistryStore, "err", err)
		case err != nil:
			f.Log.Warn("fleet: listing the servers' records", "store", f.RegistryStore, "err", err)
			out = append(out, Peer{Address: "lease store " + f.RegistryStore, Reason: ReasonStore})
		}
		slices.SortFunc(found, func(a, b registry.Instance) int { return cmp.Compare(a.URL, b.URL) })
		for _, in := range found {
			if (f.SelfID != "" && in.ID == f.SelfID) || seen[auth.URLKey(in.URL)] {
				continue
			}
			u, err := config.BaseURL(in.URL)
			if err != nil {
				f.Log.Warn("fleet: skipping a record whose URL is not a base URL", "store", f.RegistryStore, "instance", in.ID, "err", err)
				continue
			}
			seen[auth.URLKey(u)] = true
			add(Peer{Address: u, Registered: true, worker: in.Worker})
		}
	}
	for _, addr := range f.Peers {
		if !seen[auth.URLKey(addr)] {
			seen[auth.URLKey(addr)] = true
			add(Peer{Address: addr, worker: -1})
		}
	}
	if dropped > 0 {
		f.Log.Warn("fleet: too many instances, the rest not listed", "max", MaxFleet, "dropped", dropped)
	}

	key := f.Key()
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
			res, err := idgenv1connect.NewIDServiceClient(f.peerClient(), p.Address, connect.WithReadMaxBytes(MaxPeerStatusBytes)).Status(cctx, req)
			if err != nil {
				p.Reason = peerReason(err)
				f.Log.Warn("fleet: peer did not answer", "peer", p.Address, "reason", p.Reason, "err", err)
				return
			}
			if why := p.mismatch(res.Msg); why != "" {
				p.Reason = ReasonMismatch
				f.Log.Warn("fleet: peer answered as another instance", "peer", p.Address, "why", why)
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

// peerClient returns the HTTP client of List's calls: one for the server's life, so a
// console refreshing its fleet page reuses connections instead of opening new ones each
// time. It follows no redirect (a peer's 3xx is its answer, an error: the call, its
// signature and a Referer go nowhere else), uses no proxy from the environment, and
// bounds each step by PeerTimeout besides the call's own deadline.
func (f *Fleet) peerClient() *http.Client {
	f.once.Do(func() {
		f.client = &http.Client{
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
	return f.client
}

// Close closes the idle connections of List's calls; a List after Close makes none
// that stay open.
func (f *Fleet) Close() {
	f.once.Do(func() {}) // no client made after this
	if f.client != nil {
		f.client.CloseIdleConnections()
	}
}

// errPeerTooLarge ends the read of a peer's answer longer than MaxPeerStatusBytes.
var errPeerTooLarge = errors.New("control: the peer's answer is longer than MaxPeerStatusBytes")

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
