package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what one sustained window measured.
type Result struct {
	// Counts holds the IDs each goroutine issued.
	Counts []int64
	// Errors counts the calls that failed, over all goroutines; Err is one of them.
	Errors int64
	Err    error
	// Wall is the time from the start signal until the last goroutine stopped: every
	// counted ID was issued within it.
	Wall time.Duration
	// CPU is the user plus system time the process used over Wall, or -1 where the
	// platform does not report it.
	CPU time.Duration
}

// Total returns the IDs issued by all goroutines.
func (r Result) Total() int64 {
	var n int64
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Rate returns the IDs issued per second of wall time.
func (r Result) Rate() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Total()) / r.Wall.Seconds()
}

// Cores returns the CPU cores the process kept busy on average, or -1 if unknown.
func (r Result) Cores() float64 {
	if r.CPU < 0 || r.Wall <= 0 {
		return -1
	}
	return r.CPU.Seconds() / r.Wall.Seconds()
}

// MinShare returns the IDs of the goroutine that issued the fewest, as a fraction of the
// fair share (the total divided evenly): 1 is perfectly fair, 0 means one starved.
func (r Result) MinShare() float64 {
	total := r.Total()
	if total == 0 || len(r.Counts) == 0 {
		return 0
	}
	least := r.Counts[0]
	for _, c := range r.Counts[1:] {
		least = min(least, c)
	}
	return float64(least) / (float64(total) / float64(len(r.Counts)))
}

// Window runs goroutines that each call next in a loop for about d, and counts what each
// issued. next receives the goroutine's index, from 0; a call that returns an error is
// counted as an error, not as an ID, and the loop goes on. Each goroutine keeps its own
// count, so the loop shares nothing but the generator and a stop flag that is only read.
func Window(goroutines int, d time.Duration, next func(g int) error) Result {
	type tally struct {
		n, errs int64
		err     error
	}
	tallies := make([]tally, goroutines)
	var (
		stop  atomic.Bool
		ready sync.WaitGroup
		done  sync.WaitGroup
		begin = make(chan struct{})
	)
	ready.Add(goroutines)
	done.Add(goroutines)
	for g := range goroutines {
		go func() {
			defer done.Done()
			var t tally
			ready.Done()
			<-begin
			for !stop.Load() {
				if err := next(g); err != nil {
					if t.errs++; t.err == nil {
						t.err = err
					}
					continue
				}
				t.n++
			}
			tallies[g] = t
		}()
	}
	ready.Wait()
	runtime.GC() // the garbage of earlier windows is not this one's cost

	cpu0, cpuOK := cpuTime()
	start := time.Now()
	close(begin)
	time.Sleep(d)
	stop.Store(true)
	done.Wait()
	wall := time.Since(start)
	cpu1, _ := cpuTime()

	r := Result{Counts: make([]int64, goroutines), Wall: wall, CPU: -1}
	if cpuOK {
		r.CPU = cpu1 - cpu0
	}
	for g, t := range tallies {
		r.Counts[g] = t.n
		r.Errors += t.errs
		if r.Err == nil {
			r.Err = t.err
		}
	}
	return r
}
