//go:build linux

package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SmallFS mounts a tmpfs of the given size ("1m") on a new directory for
// the test, unmounted when it ends, and returns the directory: a file
// system a test can fill (FillFS). Mounting needs root; where it is not
// allowed the test is skipped with a message saying so (CI may not run as
// root, so it is not an error there either).
func SmallFS(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// FillFS writes into dir until its file system is full and returns the
// filler's path: removing it makes room again.
func FillFS(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fill")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return p
		}
	}
}
