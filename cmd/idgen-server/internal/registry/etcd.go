package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefaultEtcdPrefix starts the keys of an etcd Store given no prefix: etcdlease's
// default prefix, so that the records sit beside the leases.
const DefaultEtcdPrefix = "idgen/lease/"

// Etcd is a Store on etcd: one key per instance, Prefix+"server/"+ID, attached to an etcd
// lease of the TTL that each Put keeps alive, so that etcd deletes the key of an instance
// that stops.
type Etcd struct {
	c      *clientv3.Client
	prefix string // ends in "server/"

	mu     sync.Mutex
	leases map[string]clientv3.LeaseID // by instance ID, of the records Put here
}

// NewEtcd returns the Store under prefix (DefaultEtcdPrefix if empty) on c.
func NewEtcd(c *clientv3.Client, prefix string) *Etcd {
	if prefix == "" {
		prefix = DefaultEtcdPrefix
	}
	return &Etcd{c: c, prefix: prefix + "server/", leases: map[string]clientv3.LeaseID{}}
}

// Put implements Store: the first Put of an ID grants an etcd lease of ttl (whole
// seconds, at least etcd's minimum), the next ones keep it alive; each writes the record
// on it. A lease etcd no longer knows (it expired, or etcd lost it) is granted again.
func (s *Etcd) Put(ctx context.Context, in Instance, ttl time.Duration) error {
	if err := checkInstance(in); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.leases[in.ID]
	if ok {
		if _, err := s.c.KeepAliveOnce(ctx, id); err != nil {
			if !errors.Is(err, rpctypes.ErrLeaseNotFound) {
				return fmt.Errorf("registry: renewing %s: %w", in.ID, err)
			}
			ok = false
		}
	}
	if !ok {
		secs := int64((ttl + time.Second - 1) / time.Second)
		g, err := s.c.Grant(ctx, max(secs, 1))
		if err != nil {
			return fmt.Errorf("registry: granting a lease for %s: %w", in.ID, err)
		}
		id = g.ID
		s.leases[in.ID] = id
	}
	if _, err := s.c.Put(ctx, s.prefix+in.ID, string(encode(in, time.Now().Add(ttl))), clientv3.WithLease(id)); err != nil {
		return fmt.Errorf("registry: writing %s: %w", in.ID, err)
	}
	return nil
}

// List implements Store: one Get of the prefix. A record that does not decode is
// skipped (ErrUndecodable).
func (s *Etcd) List(ctx context.Context) ([]Instance, error) {
	r, err := s.c.Get(ctx, s.prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	out := make([]Instance, 0, len(r.Kvs))
	var sk skipped
	for _, kv := range r.Kvs {
		in, err := decode(strings.TrimPrefix(string(kv.Key), s.prefix), kv.Value)
		if err != nil {
			sk.add(err)
			continue
		}
		out = append(out, in)
	}
	return out, sk.err()
}

// Delete implements Store: it revokes the record's etcd lease when it was Put here, and
// deletes the key.
func (s *Etcd) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	lid, ok := s.leases[id]
	delete(s.leases, id)
	s.mu.Unlock()
	if ok {
		if _, err := s.c.Revoke(ctx, lid); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return fmt.Errorf("registry: revoking the lease of %s: %w", id, err)
		}
	}
	if _, err := s.c.Delete(ctx, s.prefix+id); err != nil {
		return fmt.Errorf("registry: deleting %s: %w", id, err)
	}
	return nil
}
