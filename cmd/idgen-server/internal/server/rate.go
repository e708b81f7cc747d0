package server

import (
	"context"
	"sync"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
)

// Named defaults of the IDs-per-second figures Status reports.
const (
	// defaultRateInterval is the interval of one rate figure when the configuration
	// sets none (console.rate_interval).
	defaultRateInterval = 10 * time.Second
	// RateFigures is how many figures Status keeps: at the default interval, the last
	// ten minutes.
	RateFigures = 60
)

// rates keeps the IDs handed out per second, over every tag, for the last RateFigures
// intervals. Safe for concurrent use.
type rates struct {
	mu      sync.Mutex
	figures []float64 // oldest first, at most RateFigures
}

func (r *rates) add(v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.figures) == RateFigures {
		r.figures = append(r.figures[:0], r.figures[1:]...)
	}
	r.figures = append(r.figures, v)
}

func (r *rates) list() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.figures...)
}

// rateInterval is the configured interval of one rate figure.
func (s *Server) rateInterval() time.Duration {
	if d := s.cfg.Console.RateInterval; d > 0 {
		return d
	}
	return defaultRateInterval
}

// sampleRates records, every rate interval until ctx ends, each tag's IDs per second
// and the sum over every tag. The counts it reads are one atomic add per call (not per
// ID) on the serving path.
func (s *Server) sampleRates(ctx context.Context) {
	every := s.rateInterval()
	tick := time.NewTicker(every)
	defer tick.Stop()
	last := time.Now()
	prev := map[*tags.Tag]int64{}
	for _, t := range s.tagList() {
		prev[t] = t.Issued()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			secs := now.Sub(last).Seconds()
			last = now
			total := 0.0
			for _, t := range s.tagList() {
				n := t.Issued()
				r := float64(n-prev[t]) / secs
				prev[t] = n
				t.SetRate(r)
				total += r
			}
			s.rates.add(total)
		}
	}
}
