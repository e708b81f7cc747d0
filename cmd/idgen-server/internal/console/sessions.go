package console

import (
	"crypto/rand"
	"crypto/subtle"
	"sync"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
)

// session is one sign-in: the token's grant (never the token), and the token its forms
// carry, which another site cannot read, so it cannot forge them.
type session struct {
	id      string
	g       *server.Grant
	csrf    string
	expires time.Time
}

func (s *session) checkCSRF(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// sessions are the sign-ins of this instance, in memory: a restart signs everyone out.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

// add starts a session for g, dropping expired ones, and the oldest when MaxSessions
// are live.
func (ss *sessions) add(g *server.Grant, now time.Time) *session {
	s := &session{id: rand.Text() + rand.Text(), g: g, csrf: rand.Text(), expires: now.Add(SessionTTL)}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.m) >= MaxSessions {
		var oldest *session
		for id, o := range ss.m {
			if !now.Before(o.expires) {
				delete(ss.m, id)
			} else if oldest == nil || o.expires.Before(oldest.expires) {
				oldest = o
			}
		}
		if len(ss.m) >= MaxSessions && oldest != nil {
			delete(ss.m, oldest.id)
		}
	}
	ss.m[s.id] = s
	return s
}

// get returns the live session id names, nil if none.
func (ss *sessions) get(id string, now time.Time) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[id]
	if s == nil {
		return nil
	}
	if !now.Before(s.expires) {
		delete(ss.m, id)
		return nil
	}
	return s
}

func (ss *sessions) drop(id string) {
	ss.mu.Lock()
	delete(ss.m, id)
	ss.mu.Unlock()
}
