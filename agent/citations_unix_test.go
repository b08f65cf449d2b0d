//go:build unix

package agent

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFindCitationsFIFO: a cited FIFO is not read (opening one for reading
// would wait for a writer forever); it counts as no such file.
func TestFindCitationsFIFO(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan []Citation, 1)
	go func() { done <- FindCitations(root, "pipe.go:1") }()
	select {
	case got := <-done:
		want := []Citation{{Path: "pipe.go", Line: 1, Problem: "no such file"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	case <-time.After(time.Minute):
		t.Fatal("FindCitations hung on a FIFO")
	}
}
