package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildRelay builds the relay binary into a temporary directory.
func buildRelay(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "relay")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build relay: %v\n%s", err, out)
	}
	return bin
}

// blockGoList makes go list block in repo (a module without requirements):
// a vendored package that a new package imports holds a FIFO. relay's own
// scan never walks vendor/, go list reads the vendored package's files.
func blockGoList(t *testing.T, repo string) {
	t.Helper()
	write := func(rel, content string) {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.mod", string(mod)+"\nrequire example.com/dep v1.0.0\n")
	write("vendor/modules.txt", "# example.com/dep v1.0.0\n## explicit\nexample.com/dep\n")
	write("vendor/example.com/dep/b.go", "package dep\n\nfunc B() {}\n")
	write("blocked/a.go", "package blocked\n\nimport \"example.com/dep\"\n\nfunc A() { dep.B() }\n")
	if err := syscall.Mkfifo(filepath.Join(repo, "vendor", "example.com", "dep", "c.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// procsIn returns the processes whose working directory lies in dir, as
// "pid cmdline" (the go command and relay's go shim run there).
func procsIn(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}

// killProcs ends what a failed test left behind.
func killProcs(procs []string) {
	for _, p := range procs {
		if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// startBlockedIndex starts `relay index` on repo and waits until go list
// runs (blocked on the FIFO).
func startBlockedIndex(t *testing.T, bin, repo string) (*exec.Cmd, *strings.Builder, chan struct{}) {
	t.Helper()
	cmd := exec.Command(bin, "index", "--repo", repo)
	var stderr strings.Builder
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
		}
		close(read)
	}()
	listing := func() bool {
		for _, p := range procsIn(repo) {
			if strings.Contains(p, " list ") {
				return true
			}
		}
		return false
	}
	if !waitFor(60*time.Second, listing) {
		cmd.Process.Kill()
		t.Fatalf("go list never started in %s (processes there: %q)", repo, procsIn(repo))
	}
	return cmd, &stderr, read
}

// TestIndexKilledStopsGoList: `kill -9` of relay while go list blocks
// (a FIFO it reads) left the go list child running. Every process started
// for the index (relay's go shim, go list and its children) dies with it.
func TestIndexKilledStopsGoList(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the go command dies with relay on Linux only (PR_SET_PDEATHSIG)")
	}
	t.Parallel()
	bin := buildRelay(t)
	repo := tinyRepo(t)
	blockGoList(t, repo)
	cmd, _, read := startBlockedIndex(t, bin, repo)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-read
	cmd.Wait()
	if !waitFor(10*time.Second, func() bool { return len(procsIn(repo)) == 0 }) {
		left := procsIn(repo)
		killProcs(left)
		t.Fatalf("processes still running in the repository 10 s after relay was killed: %q", left)
	}
}

// TestIndexInterrupted: Ctrl-C (SIGINT) during `relay index` stops it
// promptly, says the previous index is intact, stops go list and leaves the
// graph as it was; a second Ctrl-C exits at once.
func TestIndexInterrupted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks processes through /proc")
	}
	t.Parallel()
	bin := buildRelay(t)
	for _, signals := range []int{1, 2} {
		t.Run(strconv.Itoa(signals)+" signals", func(t *testing.T) {
			repo := tinyRepo(t)
			graph := func() string {
				out, err := exec.CommandContext(t.Context(), bin, "graph", "callers", "Greet", "--repo", repo).CombinedOutput()
				if err != nil {
					t.Fatalf("graph: %v\n%s", err, out)
				}
				return string(out)
			}
			if out, err := exec.CommandContext(t.Context(), bin, "index", "--repo", repo).CombinedOutput(); err != nil {
				t.Fatalf("index: %v\n%s", err, out)
			}
			before := graph()
			blockGoList(t, repo)
			cmd, stderr, read := startBlockedIndex(t, bin, repo)
			start := time.Now()
			for range signals {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			exited := make(chan error, 1)
			go func() { <-read; exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("relay index did not stop within a minute of SIGINT; stderr:\n%s", stderr)
			}
			took := time.Since(start)
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr)
			}
			want := "relay: interrupted; the previous index is intact"
			if signals == 2 {
				want = "the previous index is intact"
			}
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			if strings.Contains(stderr.String(), repo) {
				t.Errorf("stderr names the repository's absolute path:\n%s", stderr)
			}
			if !waitFor(10*time.Second, func() bool { return len(procsIn(repo)) == 0 }) {
				left := procsIn(repo)
				killProcs(left)
				t.Errorf("processes still running in the repository after the interrupt: %q", left)
			}
			if after := graph(); after != before {
				t.Errorf("the graph changed after the interrupted run:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			t.Logf("stopped %s after SIGINT", took.Round(time.Millisecond))
		})
	}
}

// TestIndexNotIndexedSummary: `relay index` lists by repository-relative
// path what it did not index: a FIFO source file, links leading outside
// the repository, a link loop; nothing from outside reaches the graph.
func TestIndexNotIndexedSummary(t *testing.T) {
	t.Parallel()
	repo := tinyRepo(t)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "secret.go"), []byte("package greet\n\n// Hidden is outside.\nfunc Hidden() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.md"), []byte("# outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, target := range map[string]string{
		"greet/secret.go": filepath.Join(out, "secret.go"),
		"ext":             out,
		"notes.md":        filepath.Join(out, "notes.md"),
		"loop.md":         "loop.md",
	} {
		if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "greet", "x.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code != 0 {
		t.Fatalf("relay index = %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Not indexed: 4 (",
		"  ext: links outside the repository\n",
		"  greet/secret.go: links outside the repository\n",
		"  greet/x.go: not a regular file (a FIFO)\n",
		"  loop.md: symbolic link loop\n",
		// The graph summary listed the others already.
		"Not in the search index: 1\n  notes.md: links outside the repository\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, out) {
		t.Errorf("summary names the outside directory:\n%s", stdout)
	}
	if code, got, _ := relay(t, "", "graph", "callers", "Hidden", "--repo", repo); code == 0 {
		t.Errorf("graph finds the outside function Hidden:\n%s", got)
	}
}

// TestIndexInterruptedFresh: Ctrl-C during the first `relay index` of a
// repository, while go list blocks, leaves no store behind; the next run
// indexes from scratch and its search index finds the code.
func TestIndexInterruptedFresh(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks processes through /proc")
	}
	t.Parallel()
	bin := buildRelay(t)
	repo := tinyRepo(t)
	blockGoList(t, repo)
	cmd, stderr, read := startBlockedIndex(t, bin, repo)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { <-read; exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("relay index did not stop within a minute of SIGINT; stderr:\n%s", stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	if want := "nothing was indexed"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, ".relay")); !os.IsNotExist(err) {
		t.Errorf("the interrupted first run left its store behind (stat: %v)", err)
	}
	if !waitFor(10*time.Second, func() bool { return len(procsIn(repo)) == 0 }) {
		left := procsIn(repo)
		killProcs(left)
		t.Errorf("processes still running in the repository after the interrupt: %q", left)
	}
	if err := os.RemoveAll(filepath.Join(repo, "blocked")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), bin, "index", "--repo", repo).CombinedOutput(); err != nil {
		t.Fatalf("index after the interrupted run: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(t.Context(), bin, "search", "says hello", "--repo", repo).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "greet/greet.go") {
		t.Errorf("search after re-indexing: %v\n%s", err, out)
	}
}
