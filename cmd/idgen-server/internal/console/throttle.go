package console

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Sign-in throttling: a token guessed through the login form costs time.
const (
	// MaxFailedSignIns is how many wrong tokens one address may send before its
	// sign-ins are refused for SignInLockout, doubled at every further wrong token (up
	// to MaxSignInLockout). An address's failures are forgotten after MaxSignInLockout
	// without one.
	MaxFailedSignIns = 5
	SignInLockout    = 30 * time.Second
	MaxSignInLockout = 15 * time.Minute
	// MaxFailedSignInsGlobal is how many wrong tokens from all addresses together, within
	// a minute, refuse every sign-in for the rest of that minute: many addresses (IPv6
	// gives plenty) do not multiply the guesses.
	MaxFailedSignInsGlobal = 100
	// maxThrottled caps the addresses remembered; past it, the oldest are dropped.
	maxThrottled = 4096
)

// throttle counts failed sign-ins per address and over all. Safe for concurrent use.
type throttle struct {
	mu       sync.Mutex
	byAddr   map[string]*failures
	window   time.Time // start of the global minute
	inWindow int
}

type failures struct {
	n     int
	last  time.Time
	until time.Time // refused until then
}

func addrOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// wait returns how long sign-ins from r's address are refused still, 0 if not.
func (t *throttle) wait(r *http.Request, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inWindow >= MaxFailedSignInsGlobal && now.Sub(t.window) < time.Minute {
		return time.Minute - now.Sub(t.window)
	}
	if f := t.byAddr[addrOf(r)]; f != nil && now.Before(f.until) {
		return f.until.Sub(now)
	}
	return 0
}

// fail records a wrong token from r's address.
func (t *throttle) fail(r *http.Request, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.window) >= time.Minute {
		t.window, t.inWindow = now, 0
	}
	t.inWindow++
	if t.byAddr == nil {
		t.byAddr = map[string]*failures{}
	}
	a := addrOf(r)
	f := t.byAddr[a]
	if f == nil || now.Sub(f.last) > MaxSignInLockout {
		if len(t.byAddr) >= maxThrottled {
			t.evict(now)
		}
		f = &failures{}
		t.byAddr[a] = f
	}
	f.n++
	f.last = now
	if f.n >= MaxFailedSignIns {
		d := SignInLockout << min(f.n-MaxFailedSignIns, 10)
		f.until = now.Add(min(d, MaxSignInLockout))
	}
}

// evict drops the addresses whose failures are forgotten, or, when none is, the one
// that failed longest ago.
func (t *throttle) evict(now time.Time) {
	var oldest string
	for a, f := range t.byAddr {
		if now.Sub(f.last) > MaxSignInLockout {
			delete(t.byAddr, a)
		} else if oldest == "" || f.last.Before(t.byAddr[oldest].last) {
			oldest = a
		}
	}
	if len(t.byAddr) >= maxThrottled && oldest != "" {
		delete(t.byAddr, oldest)
	}
}

// retryAfter is a Retry-After value for d, in whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}
