package golang_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/internal/testutil"
)

// TestMain lets go list run through the test binary acting as the go
// command shim, as it does through relay (RunGoShim).
func TestMain(m *testing.M) {
	golang.RunGoShim()
	os.Exit(m.Run())
}

// runWithin runs the indexer over root with opts under the hang guard
// limit (indextest.RunWithin).
func runWithin(t *testing.T, limit time.Duration, root string, opts index.Options) (index.Summary, time.Duration, error) {
	t.Helper()
	opts.Root = root
	return indextest.RunWithin(t, limit, func(ctx context.Context) (index.Summary, error) {
		return index.Run(ctx, indextest.OpenStore(), opts)
	})
}

// TestFileBecomesFIFOAfterList swaps a listed file for a FIFO between go
// list and parsing: the parser does not block on it either.
func TestFileBecomesFIFOAfterList(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	testutil.WriteFile(t, root, "p/a.go", "package p\n\nfunc A() {}\n")
	testutil.WriteFile(t, root, "p/b.go", "package p\n\nfunc B() {}\n")
	golang.SetTestHookListed(t, func(root string) {
		removeFile(t, root, "p/b.go")
		indextest.Mkfifo(t, root, "p/b.go")
	})
	sum, _, err := runWithin(t, 60*time.Second, root, index.Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := []string{"p/b.go: not a regular file (a FIFO)"}
	if diff := cmp.Diff(want, indextest.Notes(sum)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// blockingListRepo returns a module whose go list blocks: a vendored
// package holds a FIFO (relay's scan does not walk vendor/; go list reads
// the vendored package's files).
func blockingListRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n")
	testutil.WriteFile(t, root, "vendor/modules.txt", "# example.com/dep v1.0.0\n## explicit\nexample.com/dep\n")
	testutil.WriteFile(t, root, "vendor/example.com/dep/b.go", "package dep\n\nfunc B() {}\n")
	indextest.Mkfifo(t, root, "vendor/example.com/dep/c.go")
	testutil.WriteFile(t, root, "p/a.go", "package p\n\nimport \"example.com/dep\"\n\nfunc A() { dep.B() }\n")
	return root
}

// processesIn returns the processes whose working directory lies in dir,
// as "pid cmdline".
func processesIn(dir string) []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
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

// TestListTimeout: a go list that blocks is stopped by the list timeout,
// with its process group, and the run fails saying so.
func TestListTimeout(t *testing.T) {
	t.Parallel()
	root := blockingListRepo(t)
	_, took, err := runWithin(t, 60*time.Second, root, index.Options{ListTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 2s") {
		t.Fatalf("Run error = %v, want the list timeout", err)
	}
	if strings.Contains(err.Error(), root) {
		t.Errorf("error names the absolute root: %v", err)
	}
	// gocommand interrupts, then kills after 5 s.
	if took > time.Minute { // a hang guard
		t.Errorf("Run took %s, want about the 2 s timeout", took)
	}
	deadline := time.Now().Add(time.Minute)
	for len(processesIn(root)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := processesIn(root); len(left) > 0 {
		t.Errorf("processes left running in the repository after the timeout: %q", left)
	}
}
