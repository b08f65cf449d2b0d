//go:build !unix

package embedded

import "time"

// cpuTime is not measured here; BenchmarkWrite reports 0 CPU seconds.
func cpuTime() time.Duration { return 0 }
