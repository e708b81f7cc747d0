//go:build !unix

package bench

import "time"

// cpuTime reports that this platform's CPU time is not measured.
func cpuTime() (time.Duration, bool) { return 0, false }
