//go:build unix

package testutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFOSwapRace writes root/name holding body, then swaps it for a FIFO and
// back tries times while read is called tries times, in step. It skips the
// test where FIFOs cannot be made, and returns the number of swap cycles.
func FIFOSwapRace(t testing.TB, root, name, body string, tries int, read func()) int64 {
	t.Helper()
	x, tmp := filepath.Join(root, name), filepath.Join(root, ".swap")
	if err := os.WriteFile(x, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".probe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return inStep(tries, func() {
		syscall.Mkfifo(tmp, 0o644)
		os.Rename(tmp, x)
		os.WriteFile(tmp, []byte(body), 0o644)
		os.Rename(tmp, x)
	}, func(int) { read() })
}
