//go:build linux

package retrieve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestFailedUpdateMarksStale reproduces issue 18's probe: after a search
// index write failed (a full disk) the old index was served as current,
// with line numbers the files no longer have. On a real full file system:
// the failed Build (ErrIndexNotWritten) leaves the index marked stale,
// Open refuses it (ErrIndexStale), and the next Build (with room again)
// brings it up to date with the new line numbers.
func TestFailedUpdateMarksStale(t *testing.T) {
	state := filepath.Join(testutil.SmallFS(t, "1m"), "state")
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: state}); err != nil {
		t.Fatal(err)
	}
	line := func(s *Searcher) int {
		t.Helper()
		res, err := s.Search(t.Context(), "computeDelay", SearchOptions{Limit: 1})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("search computeDelay: %+v, %v", res, err)
		}
		return res.Hits[0].StartLine
	}
	s, err := Open(root, g, OpenOptions{Dir: state})
	if err != nil {
		t.Fatal(err)
	}
	before := line(s)

	// Ten lines more above computeDelay, then a full disk.
	p := filepath.Join(root, "storage", "retry.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "\nimport", strings.Repeat("\n// padding", 10)+"\nimport", 1)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g = testutil.FakeIndex(t, root)
	fill := testutil.FillFS(t, state)
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: state}); !errors.Is(err, ErrIndexNotWritten) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Build on a full file system = %v, want ErrIndexNotWritten and ENOSPC", err)
	}
	if s, err := Open(root, g, OpenOptions{Dir: state}); !errors.Is(err, ErrIndexStale) || !errors.Is(err, ErrIndexDamaged) ||
		!strings.Contains(err.Error(), "stale") {
		got := "no searcher"
		if s != nil {
			got = fmt.Sprintf("computeDelay at line %d, the file has it %d lines lower", line(s), 10)
		}
		t.Fatalf("Open after a failed update = %v (%s), want ErrIndexStale", err, got)
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: state}); err != nil {
		t.Fatal(err)
	}
	s, err = Open(root, g, OpenOptions{Dir: state})
	if err != nil {
		t.Fatalf("Open after the rebuild: %v", err)
	}
	if after := line(s); after != before+10 {
		t.Errorf("computeDelay at line %d after the rebuild, want %d", after, before+10)
	}
}
