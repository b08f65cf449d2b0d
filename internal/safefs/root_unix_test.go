//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/relayhq/relay/internal/testutil"
)

// within runs f and fails the test when it has not returned within d
// (leaving the stuck call behind rather than hanging the test).
func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		t.Fatalf("still blocked after %s", d)
	}
	return nil
}

// TestFIFO: a FIFO named like source is refused at once (opening it by
// name would wait for a writer forever), through the root and by
// ReadRegular, and named in the error and the note.
func TestFIFO(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fifo := filepath.Join(root, "x.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := openRoot(t, root)
	err := within(t, time.Second, func() error { _, err := r.ReadFile("x.go", 0); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != "x.go is a FIFO, not a regular file; only regular files and directories can be read" {
		t.Errorf("ReadFile(FIFO) error = %v", err)
	}
	if got, want := Reason(err), "not a regular file (a FIFO)"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
	err = within(t, time.Second, func() error { _, err := ReadRegular(fifo, 0); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != "not a regular file (a FIFO)" {
		t.Errorf("ReadRegular(FIFO) error = %v", err)
	}
	if err := os.Symlink("x.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	err = within(t, time.Second, func() error { _, err := r.ReadFile("link.go", 0); return err })
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(link to a FIFO) error = %v", err)
	}
}

// TestDevice: ReadRegular refuses a character device rather than read
// /dev/zero, which would never end.
func TestDevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadRegular("/dev/zero", 0)
	if !errors.Is(err, ErrNotRegular) || err.Error() != "not a regular file (a character device)" {
		t.Errorf("ReadRegular(/dev/zero) error = %v", err)
	}
}

// TestFIFOSwapRace swaps a regular file and a FIFO under ReadFile: a file
// that is regular when listed and a FIFO when opened must not hang either.
func TestFIFOSwapRace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := openRoot(t, root)
	const tries = 300
	var fifo, regular int
	swaps := testutil.FIFOSwapRace(t, root, "x.go", "package x\n", tries, func() {
		var data []byte
		err := within(t, 5*time.Second, func() error {
			var err error
			data, err = r.ReadFile("x.go", 0)
			return err
		})
		switch {
		case err == nil && string(data) == "package x\n":
			regular++
		case errors.Is(err, ErrNotRegular):
			fifo++
		default:
			t.Errorf("unexpected answer %q, %v", data, err)
		}
	})
	t.Logf("%d reads during %d swap cycles: %d regular, %d refused as a FIFO", tries, swaps, regular, fifo)
}
