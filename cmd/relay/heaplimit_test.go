package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLimitHeap checks the soft memory limit held while files are read
// ahead: set and restored; given back by itself once the live heap passes
// the release mark; never raised above a lower limit already set. Not
// parallel: the limit is the process's.
func TestLimitHeap(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	debug.SetMemoryLimit(math.MaxInt64)

	restore := limitHeap(700<<20, math.MaxInt64)
	if got := debug.SetMemoryLimit(-1); got != 700<<20 {
		t.Errorf("limit while reading ahead = %d, want %d", got, 700<<20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit after restore = %d, want none", got)
	}

	restore = limitHeap(700<<20, 1) // any live heap passes the mark
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 && time.Now().Before(deadline) {
		runtime.GC() // the live heap is measured by a collection
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit still %d after the live heap passed the release mark", got)
	}
	restore()

	debug.SetMemoryLimit(100 << 20)
	restore = limitHeap(700<<20, math.MaxInt64)
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("a lower limit already set became %d", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("limit after restore = %d, want the lower one", got)
	}
}
