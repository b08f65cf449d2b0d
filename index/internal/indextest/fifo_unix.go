//go:build unix

package indextest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mkfifo makes a FIFO at root/rel (slash-separated), with the directories
// it needs; the test is skipped where FIFOs cannot be made.
func Mkfifo(t *testing.T, root, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}
