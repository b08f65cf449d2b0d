package main

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Bounds of the soft memory limit held while the search index's files are
// read ahead (limitHeapWhileReadingAhead).
const (
	aheadHeapLimit   = 700 << 20 // the standard library's graph peaks near 600 MiB of Go memory without them
	aheadHeapRelease = 560 << 20 // live heap past which the limit would make the collector run without pause
)

// limitHeapWhileReadingAhead sets a soft memory limit for a cold run that
// reads the search index's files ahead (retrieve.StartPrefetch) and
// returns what restores the previous one. What was read ahead stays live
// through the graph indexer's peak, where the collector's default pacing
// (a heap of twice the live bytes) would count it twice; the limit makes
// the collector run sooner instead. A graph whose own live heap nears the
// limit (a larger repository) gets the default pacing back at once, so
// that the collector never runs without pause.
func limitHeapWhileReadingAhead() (restore func()) {
	return limitHeap(aheadHeapLimit, aheadHeapRelease)
}

// limitHeap sets the soft memory limit to limit, unless a lower one is set
// (GOMEMLIMIT), until the live heap passes release or restore is called.
func limitHeap(limit, release int64) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if prev <= limit {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	stop, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	unset := func() { once.Do(func() { debug.SetMemoryLimit(prev) }) }
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > uint64(release) {
				unset()
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		unset()
	}
}
