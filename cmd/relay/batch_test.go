package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeTickets(t testing.TB, n int, fail map[int]bool) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		body := fmt.Sprintf("Ticket number %d about SMS.", i)
		if fail[i] {
			body = "FAIL " + body
		}
		fmt.Fprintf(&b, `{"id":"t%03d","title":"Ticket %d","body":%q}`+"\n", i, i, body)
	}
	p := filepath.Join(t.TempDir(), "tickets.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBatchCommand(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	in := writeTickets(t, 3, map[int]bool{1: true})
	out := filepath.Join(t.TempDir(), "reports")
	args := append([]string{"batch", "--repo", root, "--in", in, "--out", out, "--concurrency", "2", "--retries", "1"}, modelFlags...)

	code, stdout, stderr := relayAgent(t, m.env(), "", args...)
	if code != 1 || !strings.Contains(stderr, "1 of 3 tickets failed; their errors are in "+out+"/<id>.error") {
		t.Fatalf("first run: exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"id    status  tokens  time", "t000  done    75", "t001  failed  0", "t002  done    75", "3 tickets: 2 done, 1 failed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	var files []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if diff := cmp.Diff([]string{"t000.json", "t000.md", "t001.error", "t002.json", "t002.md"}, files); diff != "" {
		t.Errorf("report files (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "t001.error")); !strings.Contains(string(b), "status code: 401") {
		t.Errorf("t001.error = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "t000.md")); !strings.Contains(string(b), "# Scoping: Ticket 0") {
		t.Errorf("t000.md = %q", b)
	}
	first := len(m.srv.Requests())

	// Resume: finished tickets are skipped, the failed one is tried again.
	code, stdout, _ = relayAgent(t, m.env(), "", args...)
	if code != 1 || !strings.Contains(stdout, "3 tickets: 2 skipped, 1 failed") || !strings.Contains(stdout, "t000  skipped  -") {
		t.Errorf("resume: exit %d, summary:\n%s", code, stdout)
	}
	if got := len(m.srv.Requests()) - first; got != 1 {
		t.Errorf("resume made %d model requests, want 1 (the failing ticket's planner call)", got)
	}
}

func TestBatchCommandErrors(t *testing.T) {
	t.Parallel()
	root := agentRepo(t)
	in := writeTickets(t, 2, nil)
	out := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no flags", []string{"batch"}, 2, "batch needs --in FILE (.jsonl or .csv) and --out DIR"},
		{"bad concurrency", []string{"batch", "--in", in, "--out", out, "--concurrency", "0"}, 2, "--concurrency 0: want at least 1"},
		{"missing input", []string{"batch", "--in", filepath.Join(out, "none.jsonl"), "--out", out}, 1, "read tickets: open"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := relayAgent(t, func(string) string { return "" }, "", append([]string{"--repo", root}, tc.args...)...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantErr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, no stdout and %q", code, stdout, stderr, tc.wantCode, tc.wantErr)
			}
		})
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("failed batches wrote %d files", len(entries))
	}
}

// TestBatchNoLeaks runs a 100-ticket batch against a scripted model and
// checks that goroutines, file descriptors and the heap return to where
// they were. It is not parallel: it measures the whole process.
func TestBatchNoLeaks(t *testing.T) {
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	in := writeTickets(t, 100, map[int]bool{7: true, 50: true})
	out := filepath.Join(t.TempDir(), "reports")
	args := append([]string{"batch", "--repo", root, "--in", in, "--out", out, "--concurrency", "4", "--retries", "1"}, modelFlags...)

	// Warm up once so lazily started runtime and net/http goroutines exist
	// before the baseline.
	relayAgent(t, m.env(), "", append(args[:len(args):len(args)], "--out", filepath.Join(t.TempDir(), "warm"))...)
	m.srv.Forget()
	g0, fd0, fds0, heap0 := settle(t, -1, -1)

	// No GC during the batch: finalizers would close leaked files and hide them.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	code, stdout, stderr := relayAgent(t, m.env(), "", args...)
	if code != 1 || !strings.Contains(stdout, "100 tickets: 98 done, 2 failed") {
		t.Fatalf("exit %d\nstdout tail:\n%s\nstderr tail:\n%s", code, tail(stdout, 400), tail(stderr, 400))
	}
	m.srv.Forget()
	g1, fd1, fds1, heap1 := settle(t, g0, fd0)
	t.Logf("goroutines %d → %d, fds %d → %d, heap %d KiB → %d KiB", g0, g1, fd0, fd1, heap0>>10, heap1>>10)
	if g1 > g0 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines leaked: %d before, %d after\n%s", g0, g1, buf[:runtime.Stack(buf, true)])
	}
	if fd1 > fd0 {
		// fds1 was listed before the collection settle ends with: a
		// descriptor that the collection closed belongs to a file or
		// connection nobody closed.
		t.Errorf("file descriptors leaked: %d before, %d after; new: %v; open after a collection: %d",
			fd0, fd1, newFDs(fds0, fds1), openFDs(t))
	}
	if growth := int64(heap1) - int64(heap0); growth > 2<<20 {
		t.Errorf("heap grew by %d KiB over 100 tickets", growth>>10)
	}
}

// settle waits (up to a minute, a hang guard) until goroutines and fds drop to the given
// baselines (-1: just let things settle briefly) and returns the counts,
// the descriptors' targets and the live heap. Counts and targets are taken
// before any GC, so a file left open for a finalizer to close still counts
// as leaked, and is named.
func settle(t *testing.T, wantG, wantFD int) (g, fd int, targets map[string]string, heap uint64) {
	t.Helper()
	start := time.Now()
	for {
		g, fd = runtime.NumGoroutine(), openFDs(t)
		waited := time.Since(start)
		if (wantG < 0 && waited > 200*time.Millisecond) || (wantG >= 0 && g <= wantG && fd <= wantFD) || waited > time.Minute {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	targets = fdTargets()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return g, fd, targets, ms.HeapAlloc
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(entries)
}

// fdTargets maps each open file descriptor to what it refers to.
func fdTargets() map[string]string {
	out := map[string]string{}
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		out[e.Name()] = target
	}
	return out
}

// newFDs lists the descriptors of after that before did not have (or that
// now refer to something else), as "fd → target".
func newFDs(before, after map[string]string) []string {
	var out []string
	for fd, target := range after {
		if before[fd] != target {
			out = append(out, fd+" → "+target)
		}
	}
	slices.Sort(out)
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestBatchTimeoutIsRedone: a ticket whose model endpoint does not answer in
// time is a failure (as an HTTP 500 is), not a finished empty report, so a
// resumed batch scopes it again.
func TestBatchTimeoutIsRedone(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"request timeout", []string{"--request-timeout", "2s"}, "did not answer within --request-timeout 2s (1 attempt(s), --retries)"},
		{"run timeout", []string{"--timeout", "3s"}, "the run stopped early (timeout) before the model answered anything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := startFakeModel(t)
			m.hang.Store(true)
			root := agentRepo(t)
			in := filepath.Join(t.TempDir(), "tickets.jsonl")
			tickets := `{"id":"t000","title":"Ticket 0","body":"SMS are slow."}
{"id":"t001","title":"Ticket 1","body":"HANG: SMS are sent twice."}
{"id":"t002","title":"Ticket 2","body":"SMS go missing."}
`
			if err := os.WriteFile(in, []byte(tickets), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "reports")
			args := append([]string{"batch", "--repo", root, "--in", in, "--out", out, "--concurrency", "3", "--retries", "1"}, modelFlags...)
			args = append(args, tc.args...)

			code, stdout, stderr := relayAgent(t, m.env(), "", args...)
			if code != 1 || !strings.Contains(stdout, "3 tickets: 2 done, 1 failed") || !strings.Contains(stdout, "t001  failed") {
				t.Fatalf("first run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, name := range []string{"t001.md", "t001.json"} {
				if _, err := os.Stat(filepath.Join(out, name)); err == nil {
					t.Errorf("the timed-out ticket has %s: it would count as finished", name)
				}
			}
			b, err := os.ReadFile(filepath.Join(out, "t001.error"))
			if err != nil || !strings.Contains(string(b), tc.wantErr) {
				t.Errorf("t001.error = %q, %v; want %q", b, err, tc.wantErr)
			}

			m.hang.Store(false)
			code, stdout, stderr = relayAgent(t, m.env(), "", args...)
			if code != 0 || !strings.Contains(stdout, "3 tickets: 1 done, 2 skipped") || !strings.Contains(stdout, "t001  done") {
				t.Fatalf("resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			md, err := os.ReadFile(filepath.Join(out, "t001.md"))
			if err != nil || !strings.Contains(string(md), "# Scoping: Ticket 1") || !strings.Contains(string(md), "SMS are resent when the provider is slow.") {
				t.Errorf("t001.md after resume = %q, %v; want the gap detector's report", md, err)
			}
			if _, err := os.Stat(filepath.Join(out, "t001.error")); err == nil {
				t.Error("t001.error is still there after the ticket was redone")
			}
		})
	}
}

// TestBatchQueueNotPostgres: the hint of a --queue that is not PostgreSQL
// reaches the user whole; it was postgres://user@host/db, which the URL
// masking of every error printed as postgres://***@host/db.
func TestBatchQueueNotPostgres(t *testing.T) {
	code, _, stderr := relay(t, "", "batch", "--in", "tickets.jsonl", "--queue", "mysql://db/x")
	want := `--queue "mysql://db/x": want a postgres:// URL such as postgres://db.example.com:5432/relay`
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
