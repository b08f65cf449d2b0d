package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pdeathRootEnv tells the test binary, run again as a child, to be
// TestPdeathHelper: a stand-in for relay that starts rg and waits.
const pdeathRootEnv = "RELAY_TEST_PDEATH_ROOT"

// TestChildDiesWithRelay starts a process that runs rg, through runProc as
// grep does, on a FIFO nobody writes (rg waits on it forever), kills that
// process with SIGKILL and checks that rg dies with it.
func TestChildDiesWithRelay(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "slow.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, unconfined := range []bool{false, true} {
		t.Run(fmt.Sprint("unconfined=", unconfined), func(t *testing.T) {
			helper := exec.Command(os.Args[0], "-test.run=^TestPdeathHelper$", "-test.v")
			helper.Env = append(os.Environ(), pdeathRootEnv+"="+root, fmt.Sprintf("RELAY_TEST_PDEATH_UNCONFINED=%v", unconfined))
			out, err := helper.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := helper.Start(); err != nil {
				t.Fatal(err)
			}
			pid := rgPid(t, out)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // when the test fails
			go io.Copy(io.Discard, out)
			if err := syscall.Kill(pid, 0); err != nil {
				t.Fatalf("rg %d is not running before its parent is killed: %v", pid, err)
			}
			if err := helper.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = helper.Wait()
			waitGone(t, pid, time.Minute)
		})
	}
}

// rgPid reads the "rg pid N" line the helper prints.
func rgPid(t *testing.T, out io.Reader) int {
	t.Helper()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "rg pid "); ok {
			var pid int
			if _, err := fmt.Sscan(rest, &pid); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("the helper printed no rg pid (%v)", sc.Err())
	return 0
}

// waitGone waits up to guard for pid to be gone (or a zombie).
func waitGone(t *testing.T, pid int, guard time.Duration) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return
		}
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rg %d still runs %s after its parent was killed", pid, guard)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPdeathHelper is the process TestChildDiesWithRelay kills; it does
// nothing in a normal run.
func TestPdeathHelper(t *testing.T) {
	root := os.Getenv(pdeathRootEnv)
	if root == "" {
		t.Skip("run by TestChildDiesWithRelay")
	}
	g := newGrep(t, Options{Root: root})
	unconfined := os.Getenv("RELAY_TEST_PDEATH_UNCONFINED") == "true"
	_, err := runProc(context.Background(), NewProcLimit(1), g.rg, []string{"--", "never", "slow.txt"}, root, unconfined,
		func(pid int) { fmt.Printf("rg pid %d\n", pid) },
		func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err })
	t.Fatalf("rg ended while its parent should have been killed: %v", err)
}
