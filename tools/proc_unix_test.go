//go:build unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Timeout tests: the child (and its children) must be gone when a call
// returns after its deadline.

func TestGrepTimeoutKillsRg(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	// 64 MB in which a regex without literals matches nothing: rg scans for
	// a few hundred ms, far longer than the timeout (matching lines would
	// not do: --max-count ends each file after a thousand of them).
	big := strings.Repeat("match me please\n", 1<<20)
	for i := range 4 {
		writeFile(t, root, fmt.Sprintf("f%d.txt", i), big)
	}
	g := newGrep(t, Options{Root: root, Timeout: 30 * time.Millisecond})
	pids := make(chan int, 1)
	g.onStart = func(pid int) { pids <- pid }
	start := time.Now()
	res := call(t, g, `{"pattern": "\\w+\\s\\w+\\s\\w+\\d", "context": 0}`)
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("call took %s after a 30ms timeout", d)
	}
	m := res.Meta.(*GrepMeta)
	if !m.TimedOut {
		t.Fatalf("meta = %+v, want TimedOut", m)
	}
	if !strings.Contains(res.Content, "timeout") && !strings.Contains(res.Content, "timed out") {
		t.Errorf("content does not mention the timeout: %.300s", res.Content)
	}
	select {
	case pid := <-pids:
		assertGone(t, pid)
	default:
		t.Fatal("rg never started")
	}
}

// TestTimeoutKillsProcessGroup uses a stand-in rg that forks a long sleep:
// the whole process group must die, not only the direct child.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	needTools(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "slow-rg")
	pidFile := filepath.Join(dir, "grandchild.pid")
	writeFile(t, dir, "slow-rg", "#!/bin/sh\nsleep 60 &\necho $! > "+pidFile+"\nwait\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	// The stand-in writes its grandchild's pid outside the repository,
	// which a confined rg may not.
	g := newGrep(t, Options{Root: t.TempDir(), RgPath: script, Timeout: 300 * time.Millisecond, Unconfined: true})
	pids := make(chan int, 1)
	g.onStart = func(pid int) { pids <- pid }
	start := time.Now()
	res := call(t, g, `{"pattern": "x"}`)
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("call took %s after a 300ms timeout", d)
	}
	if !res.IsError || !strings.Contains(res.Content, "timed out after 300ms") {
		t.Errorf("got IsError=%v %q, want a timeout error", res.IsError, res.Content)
	}
	assertGone(t, <-pids)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("grandchild pid: %v", err)
	}
	var gc int
	fmt.Sscan(string(b), &gc)
	assertGone(t, gc)
}

// assertGone waits briefly for pid to disappear.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if err == syscall.ESRCH {
			return
		}
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") {
			return // a zombie: killed, waiting for its parent (init) to reap it
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after the call returned (kill -0: %v)", pid, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestGlobTimeout(t *testing.T) {
	t.Parallel()
	needTools(t)
	dir := t.TempDir()
	writeFile(t, dir, "slow-fd", "#!/bin/sh\nsleep 60\n")
	if err := os.Chmod(filepath.Join(dir, "slow-fd"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := newGlob(t, Options{Root: t.TempDir(), FdPath: filepath.Join(dir, "slow-fd"), Timeout: 100 * time.Millisecond})
	pids := make(chan int, 1)
	g.onStart = func(pid int) { pids <- pid }
	res := call(t, g, `{"pattern": "*.go"}`)
	if !res.IsError || res.Content != `glob "*.go" timed out after 100ms before finding anything; narrow the pattern.` {
		t.Errorf("got IsError=%v %q", res.IsError, res.Content)
	}
	assertGone(t, <-pids)
}
