package server

import (
	"context"
	"sync"
	"time"

	"github.com/idgen/idgen/idgenclient"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// PeerTimeout bounds Fleet's call to each peer.
const PeerTimeout = 2 * time.Second

// Peer is one instance of the fleet as Fleet found it: its Status, or why it did not
// answer.
type Peer struct {
	// Address is the instance's base URL ("self" for this one).
	Address string
	Status  *v1.StatusResponse
	Err     error
}

// Fleet returns this server's status and that of every peer configured (peers), asked
// at once with the first configured token that grants every tag: the fleet view of the
// console. Peers that do not answer within PeerTimeout have Err set.
func (s *Server) Fleet(ctx context.Context) []Peer {
	out := make([]Peer, 1+len(s.cfg.Peers))
	out[0] = Peer{Address: "self", Status: s.Status(nil)}
	token := ""
	for _, t := range s.cfg.Tokens {
		if len(t.Tags) == 0 {
			token, _ = t.Secret()
			break
		}
	}
	var wg sync.WaitGroup
	for i, addr := range s.cfg.Peers {
		out[i+1].Address = addr
		wg.Go(func() {
			c, err := idgenclient.New(idgenclient.Options{Addresses: []string{addr}, Token: token, CallTimeout: PeerTimeout})
			if err != nil {
				out[i+1].Err = err
				return
			}
			out[i+1].Status, out[i+1].Err = c.Status(ctx, 0)
		})
	}
	wg.Wait()
	return out
}
