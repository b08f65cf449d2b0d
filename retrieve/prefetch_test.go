package retrieve

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/internal/testutil"
)

// writeBlocksRepo writes a repository of 120 Go files and 12 READMEs,
// enough for several chunkFiles blocks, and returns a writer into it.
func writeBlocksRepo(t *testing.T) (root string, write func(rel, text string)) {
	t.Helper()
	root = t.TempDir()
	write = func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("p7/notes.md", "binary\x00notes\n")
	for i := range 120 {
		pkg := fmt.Sprintf("p%d", i/10)
		write(fmt.Sprintf("%s/f%d.go", pkg, i), fmt.Sprintf("package %s\n\n// Handle%d serves request number %d.\nfunc Handle%d() int {\n\treturn %d\n}\n", pkg, i, i, i, i))
		if i%10 == 0 {
			write(fmt.Sprintf("%s/README.md", pkg), fmt.Sprintf("# Package %s\n\nIt handles requests.\n\n## Details\n\nMore text about %s.\n", pkg, pkg))
		}
	}
	return root, write
}

// TestBuildFromPrefetch checks that a build from files read and tokenized
// ahead (Prefetch, what relay index does while the graph is indexed) writes
// the index a build without it writes, when all of the files or only the
// first block were read ahead, when files changed or went away after they
// were read ahead (those are read again), and when files were added (the
// walk differs: nothing read ahead is used).
func TestBuildFromPrefetch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		budget     int
		change     func(t *testing.T, root string, write func(rel, text string))
		wantBlocks int // -1: all of them
		wantTaken  bool
	}{
		{name: "all", budget: prefetchBudget, wantBlocks: -1, wantTaken: true},
		{name: "first block only", budget: 1, wantBlocks: 1, wantTaken: true},
		{name: "changed since", budget: prefetchBudget, wantBlocks: -1, wantTaken: true, change: func(t *testing.T, root string, write func(rel, text string)) {
			write("p0/f3.go", "package p0\n\n// Retry retries with a budget.\nfunc Retry() int { retryBudget := 7; return retryBudget }\n")
			write("p5/README.md", "# Package p5\n\nNow about caching.\n")
			write("p7/notes.md", "# Notes\n\nNo longer binary.\n")
			write("p8/README.md", "binary\x00now\n")
		}},
		{name: "removed since", budget: prefetchBudget, wantTaken: false, change: func(t *testing.T, root string, write func(rel, text string)) {
			if err := os.Remove(filepath.Join(root, "p9/f95.go")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "added since", budget: prefetchBudget, wantTaken: false, change: func(t *testing.T, root string, write func(rel, text string)) {
			write("p2/new.go", "package p2\n\nfunc Added() {}\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, write := writeBlocksRepo(t)
			ctx := t.Context()
			plain, ahead := t.TempDir(), t.TempDir()
			p := startPrefetch(root, ahead, tc.budget)
			<-p.done // all read (or the budget reached) before anything changes
			n, blocks := len(p.blocks), 0
			for first := 0; first < len(p.paths); first += blockSize(len(p.paths), runtime.GOMAXPROCS(0)) {
				blocks++
			}
			if blocks < 3 {
				t.Fatalf("%d files make %d blocks, want 3 or more", len(p.paths), blocks)
			}
			if want := tc.wantBlocks; want == -1 && n != blocks || want > 0 && n != want {
				t.Fatalf("%d blocks read ahead of %d, want %d", n, blocks, want)
			}
			if tc.change != nil {
				tc.change(t, root, write)
			}
			g := testutil.FakeIndex(t, root)
			if _, err := Build(ctx, root, g, BuildOptions{Dir: plain}); err != nil {
				t.Fatal(err)
			}
			if _, err := Build(ctx, root, g, BuildOptions{Dir: ahead, Prefetch: p}); err != nil {
				t.Fatal(err)
			}
			if p.taken != tc.wantTaken {
				t.Errorf("blocks read ahead used: %v, want %v", p.taken, tc.wantTaken)
			}
			want, err := os.ReadFile(filepath.Join(plain, IndexFile))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(ahead, IndexFile))
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(got) {
				wix, err1 := readIndex(filepath.Join(plain, IndexFile))
				gix, err2 := readIndex(filepath.Join(ahead, IndexFile))
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				t.Errorf("index built from what was read ahead differs (-plain +ahead):\n%.4000s", cmp.Diff(wix, gix, cmpopts.IgnoreUnexported(lexIndex{})))
			}
		})
	}
}

// TestPrefetchStop checks that a Prefetch stopped before it is used (a
// failed or interrupted graph run) ends its goroutine and may be stopped
// again, and that a nil one (a walk that failed) is no Prefetch at all.
func TestPrefetchStop(t *testing.T) {
	t.Parallel()
	root, _ := writeBlocksRepo(t)
	p := StartPrefetch(root, filepath.Join(root, ".relay"))
	p.Stop()
	p.Stop()
	select {
	case <-p.done:
	default:
		t.Fatal("Stop returned before the reading ahead ended")
	}
	if StartPrefetch(filepath.Join(root, "missing"), "") != nil {
		t.Error("a Prefetch of a missing directory")
	}
	var none *Prefetch
	none.Stop()
	if none.take(nil, 1) != nil {
		t.Error("blocks from a nil Prefetch")
	}
}
