//go:build unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// writeMatchingLines writes a file of size bytes in which every line
// matches "needle".
func writeMatchingLines(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := []byte(strings.Repeat("a needle in a line of text, again and again\n", 20_000))
	for n := 0; n < size; n += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGrepFileOfMatchingLines is the probe: one grep on a 200 MB
// file in which every line matches drove rg to 8–11 GB. Now rg stops at
// --max-count per file, so the call returns promptly, the answer is capped
// and says its count is a lower bound, and rg's peak RSS stays small. The
// 200 MB version runs unless -short; a 20 MB one always does.
func TestGrepFileOfMatchingLines(t *testing.T) {
	t.Parallel()
	needTools(t)
	size := 200 << 20
	if testing.Short() {
		size = 20 << 20
	}
	root := t.TempDir()
	writeMatchingLines(t, filepath.Join(root, "big.txt"), size)
	writeMatchingLines(t, filepath.Join(root, "small.txt"), 20<<20)
	g := newGrep(t, Options{Root: root})
	// rg's peak RSS is its VmHWM, polled while it runs. (The rusage of the
	// child is no use: Go starts it with CLONE_VM, so its ru_maxrss starts
	// at the test binary's own size.)
	var rss atomic.Int64
	var pollers sync.WaitGroup
	g.onStart = func(pid int) {
		pollers.Go(func() { rss.Store(pollHWM(pid)) })
	}
	for _, tc := range []struct{ name, args string }{
		{"default", `{"pattern": "needle"}`},
		{"most context and limit", `{"pattern": "needle", "limit": 1000, "context": 20}`},
	} {
		start := time.Now()
		res := call(t, g, tc.args)
		d := time.Since(start)
		pollers.Wait()
		m := res.Meta.(*GrepMeta)
		t.Logf("%s: %d MB + 20 MB of matching lines: %s, rg peak RSS %d MB, %d bytes of answer", tc.name, size>>20, d, rss.Load()>>20, len(res.Content))
		if d > time.Minute { // a hang guard
			t.Errorf("%s: call took %s", tc.name, d)
		}
		// rg may end before its first sample; a runaway rg (the 8–11 GB of
		// the issue) runs for seconds and cannot escape measurement.
		if r := rss.Load(); r > 300<<20 {
			t.Errorf("%s: rg peak RSS %d MB, want under 300 MB", tc.name, r>>20)
		}
		if !m.Capped || m.Files != 2 || m.Shown == 0 || m.Truncated == 0 {
			t.Errorf("%s: meta = %+v, want capped counts in 2 files, some shown, some truncated", tc.name, m)
		}
		if len(res.Content) > DefaultMaxOutputBytes+1000 {
			t.Errorf("%s: answer is %d bytes, want at most the %d-byte cap and its footer", tc.name, len(res.Content), DefaultMaxOutputBytes)
		}
		for _, want := range []string{"at least ", "truncated: at least ", "note: counting stopped at "} {
			if !strings.Contains(res.Content, want) {
				t.Errorf("%s: answer does not say %q: …%s", tc.name, want, res.Content[max(0, len(res.Content)-300):])
			}
		}
	}
}

// pollHWM samples /proc/pid/status until the process is gone and returns
// the last VmHWM (peak RSS) seen, in bytes; 0 when none was.
func pollHWM(pid int) int64 {
	var hwm int64
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return hwm
		}
		_, rest, ok := strings.Cut(string(b), "\nVmHWM:")
		if !ok {
			return hwm // a zombie has no memory left to report
		}
		var kb int64
		fmt.Sscan(rest, &kb)
		hwm = max(hwm, kb<<10)
		time.Sleep(100 * time.Microsecond)
	}
}

// TestGrepStopsAtOutputCap: once the output read from rg reaches its cap,
// rg is killed and the answer says the counts are lower bounds.
func TestGrepStopsAtOutputCap(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	for i := range 40 {
		writeMatchingLines(t, filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), 1<<20)
	}
	g := newGrep(t, Options{Root: root})
	g.maxStdout = 1 << 20
	pids := make(chan int, 1)
	g.onStart = func(pid int) { pids <- pid }
	res := call(t, g, `{"pattern": "needle", "context": 0}`)
	m := res.Meta.(*GrepMeta)
	if !m.Stopped || m.Files >= 40 {
		t.Errorf("meta = %+v, want stopped before all 40 files were reported", m)
	}
	if !strings.Contains(res.Content, "note: the search stopped after 1 MB of results, so counts are lower bounds") {
		t.Errorf("answer does not say it stopped: …%s", res.Content[max(0, len(res.Content)-300):])
	}
	assertGone(t, <-pids)
}

// TestProcLimitBoundsConcurrentCalls: 200 concurrent grep calls (and glob
// calls through the same registry) never run more than DefaultMaxProcs
// processes at once. Stand-in rg and fd sleep, so the calls overlap.
func TestProcLimitBoundsConcurrentCalls(t *testing.T) {
	t.Parallel()
	needTools(t)
	dir := t.TempDir()
	for _, name := range []string{"slow-rg", "slow-fd"} {
		writeFile(t, dir, name, "#!/bin/sh\nsleep 0.1\nexit 1\n")
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := Default(Options{Root: t.TempDir(), RgPath: filepath.Join(dir, "slow-rg"), FdPath: filepath.Join(dir, "slow-fd")})
	if err != nil {
		t.Fatal(err)
	}
	grep, _ := reg.Get(GrepName)
	glob, _ := reg.Get(GlobName)
	var mu sync.Mutex
	live := map[int]bool{}
	onStart := func(pid int) {
		mu.Lock()
		live[pid] = true
		mu.Unlock()
	}
	grep.(*Grep).onStart, glob.(*Glob).onStart = onStart, onStart

	// Sample the children alive (zombies included: their slot is held until
	// they are reaped) while the calls run.
	stop := make(chan struct{})
	var peak int
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			mu.Lock()
			n := 0
			for pid := range live {
				if syscall.Kill(pid, 0) == syscall.ESRCH {
					delete(live, pid)
					continue
				}
				n++
			}
			mu.Unlock()
			peak = max(peak, n)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	var calls sync.WaitGroup
	var failed atomic.Int64
	for i := range 200 {
		tool, args := grep, `{"pattern": "x"}`
		if i%4 == 3 {
			tool, args = glob, `{"pattern": "*.go"}`
		}
		calls.Go(func() {
			res, err := tool.Call(t.Context(), []byte(args))
			if err != nil || res.IsError {
				failed.Add(1)
			}
		})
	}
	calls.Wait()
	close(stop)
	sampler.Wait()
	t.Logf("200 concurrent calls: at most %d processes alive at once (limit %d)", peak, DefaultMaxProcs)
	if failed.Load() > 0 {
		t.Errorf("%d calls failed", failed.Load())
	}
	if peak > DefaultMaxProcs {
		t.Errorf("%d processes alive at once, want at most %d", peak, DefaultMaxProcs)
	}
	if peak < 2 {
		t.Errorf("at most %d process alive at once: the calls did not overlap, so the test proves nothing", peak)
	}
}

func TestProcLimit(t *testing.T) {
	t.Parallel()
	l := NewProcLimit(2)
	if l.Cap() != 2 {
		t.Fatalf("Cap() = %d, want 2", l.Cap())
	}
	for range 2 {
		if err := l.Acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := contextWithCancel(t)
	cancel()
	if err := l.Acquire(ctx); err == nil {
		t.Fatal("Acquire on a full limit with a cancelled context succeeded")
	}
	if l.Running() != 2 {
		t.Fatalf("Running() = %d, want 2", l.Running())
	}
	l.Release()
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("Acquire with a free slot: %v", err)
	}
	if NewProcLimit(0).Cap() != DefaultMaxProcs {
		t.Fatal("NewProcLimit(0) is not DefaultMaxProcs")
	}
}

// TestProcLimitWaitTimesOut: a call that cannot get a process slot within
// its timeout says so instead of running.
func TestProcLimitWaitTimesOut(t *testing.T) {
	t.Parallel()
	lim := NewProcLimit(1)
	if err := lim.Acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer lim.Release()
	g := newGrep(t, Options{Procs: lim, Timeout: 50 * time.Millisecond})
	res := call(t, g, `{"pattern": "Greet"}`)
	want := "grep \"Greet\" did not start: all 1 search processes stayed busy for the 50ms timeout; retry, or run fewer searches at once."
	if !res.IsError || res.Content != want {
		t.Errorf("got IsError=%v %q, want %q", res.IsError, res.Content, want)
	}
}
