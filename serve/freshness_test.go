package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFreshness: the first index of a repository is cold, a later one that
// changed files is incremental, and one that changed nothing is as old as
// the last write, which the mark beside the store remembers.
func TestFreshness(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), "repo", "store")
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	run := func(st IndexStats) Freshness {
		t.Helper()
		_, f, err := freshness(storeDir, "c0ffee", clock, func() (IndexStats, error) {
			return st, os.MkdirAll(storeDir, 0o755)
		})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name    string
		advance time.Duration
		st      IndexStats
		want    Freshness
		head    string
	}{
		{"cold", 0, IndexStats{Files: 40, Changed: 40}, Freshness{Cold: true, Files: 40, Changed: 40},
			"index built cold for this run (40 files)"},
		{"unchanged", 3 * time.Hour, IndexStats{Unchanged: true, Files: 40}, Freshness{Unchanged: true, Files: 40, Age: 3 * time.Hour},
			"index already up to date (no file changed), last written 3 hours ago"},
		{"incremental", time.Hour, IndexStats{Files: 41, Changed: 2}, Freshness{Files: 41, Changed: 2},
			"index updated incrementally for this run (2 of 41 files re-indexed)"},
		{"unchanged again", 50 * time.Hour, IndexStats{Unchanged: true, Files: 41}, Freshness{Unchanged: true, Files: 41, Age: 50 * time.Hour},
			"last written 2 days ago"},
	}
	for _, tc := range tests {
		now = now.Add(tc.advance)
		got := run(tc.st)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		head := ReportHead("c0ffee0123456789", "main", got)
		if !strings.HasPrefix(head, "<sub>Computed at `c0ffee012345` (main) · ") || !strings.Contains(head, tc.head) {
			t.Errorf("%s: head %q lacks %q", tc.name, head, tc.head)
		}
	}
	if err := os.Remove(markFile(storeDir)); err != nil {
		t.Fatal(err)
	}
	if got := run(IndexStats{Unchanged: true}); got.Age != -1 || !strings.Contains(ReportHead("c", "", got), "its age is not known") {
		t.Errorf("without a mark: %+v", got)
	}
}
