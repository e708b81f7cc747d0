package idem

import (
	"context"
	"errors"
	"sync"
	"time"
)

// How a request waiting on a key in progress (Config.Wait) polls the store: the first read
// MinWaitPoll after it starts waiting, then twice as long after each read, at most
// MaxWaitPoll apart. The waiters of one key in one process share one poll, so a key costs
// at most 1/MaxWaitPoll reads a second per process however many requests wait on it; a
// claim the process itself ends wakes its waiters at once.
const (
	MinWaitPoll = 5 * time.Millisecond
	MaxWaitPoll = 100 * time.Millisecond
)

// watches shares the waiting for keys in progress: however many requests of one process
// wait on a key, one goroutine polls the store for it (at most every MaxWaitPoll), and a
// claim this process ends wakes its waiters at once.
type watches struct {
	mu sync.Mutex
	m  map[string]*watch
}

// watch is the wait for one key: done closes when the poll sees the key completed (rec
// set), gone or lapsed (rec nil: claim again).
type watch struct {
	waiters int
	kick    chan struct{}
	done    chan struct{}
	rec     *Record
	stop    context.CancelFunc
}

// await waits until the key completes (its record, whose fingerprint the caller must
// check: the key may have passed to another request meanwhile), is free to claim (nil),
// ctx ends or the deadline passes (nil).
func (ws *watches) await(ctx context.Context, store Store, key string, deadline time.Time) *Record {
	w := ws.join(store, key)
	defer ws.leave(key, w)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-w.done:
		return w.rec
	case <-ctx.Done():
	case <-t.C:
	}
	return nil
}

func (ws *watches) join(store Store, key string) *watch {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.m[key]
	if w == nil {
		ctx, stop := context.WithCancel(context.Background())
		w = &watch{kick: make(chan struct{}, 1), done: make(chan struct{}), stop: stop}
		if ws.m == nil {
			ws.m = map[string]*watch{}
		}
		ws.m[key] = w
		go ws.poll(ctx, store, key, w)
	}
	w.waiters++
	return w
}

func (ws *watches) leave(key string, w *watch) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w.waiters--; w.waiters == 0 && ws.m[key] == w {
		delete(ws.m, key)
		w.stop()
	}
}

// wake makes the poll for key, if any, look now: this process just completed or released
// it.
func (ws *watches) wake(key string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w := ws.m[key]; w != nil {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// poll reads the key until it has an outcome for the watch's waiters, or they all left.
func (ws *watches) poll(ctx context.Context, store Store, key string, w *watch) {
	defer w.stop()
	pause := MinWaitPoll
	t := time.NewTimer(pause)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
			t.Stop()
		case <-t.C:
		}
		rec, err := store.Get(ctx, key)
		free := errors.Is(err, ErrNotFound) || err == nil && rec.State == InProgress && !time.Now().Before(rec.LockedUntil)
		if err == nil && rec.State == Completed || free {
			ws.mu.Lock()
			if err == nil && rec.State == Completed {
				w.rec = rec
			}
			if ws.m[key] == w {
				delete(ws.m, key)
			}
			close(w.done)
			ws.mu.Unlock()
			return
		}
		// A store error is retried like an answer of "still in progress": the waiters'
		// deadline bounds it.
		pause = min(pause*2, MaxWaitPoll)
		t.Reset(pause)
	}
}
