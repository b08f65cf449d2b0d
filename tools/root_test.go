package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReadSymlinkSwapRace is the probe: while read runs 600 times,
// a goroutine keeps swapping a file for a symlink to a secret outside the
// repository (and a directory for a symlink to the outside directory). A
// check-then-open sandbox leaked the secret in some of the 600 reads; an
// open beneath the root in one step leaks none.
func TestReadSymlinkSwapRace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	const secret = "TOP-SECRET-CONTENT"
	writeFile(t, outside, "x.txt", secret+"\n")
	writeFile(t, root, "x.txt", "public\n")
	writeFile(t, root, "real/x.txt", "public\n")
	if err := os.Symlink("real", filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	r := newRead(t, Options{Root: root})

	// 600 swap cycles run while read runs 600 times, kept in step so the
	// two overlap all along instead of one finishing first.
	const tries = 600
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		x, d := filepath.Join(root, "x.txt"), filepath.Join(root, "d")
		tmp := filepath.Join(root, ".swap")
		for range tries {
			// Each rename is atomic: at any moment x.txt is a regular file
			// or a symlink out, and d points inside or outside.
			os.Symlink(filepath.Join(outside, "x.txt"), tmp)
			os.Rename(tmp, x)
			os.Symlink(outside, tmp)
			os.Rename(tmp, d)
			os.WriteFile(tmp, []byte("public\n"), 0o644)
			os.Rename(tmp, x)
			os.Symlink("real", tmp)
			os.Rename(tmp, d)
			swaps.Add(1)
		}
	})
	var leaks, public, refused, other int
	for i := range tries {
		for swaps.Load() < int64(i) {
			runtime.Gosched()
		}
		file := "x.txt"
		if i%2 == 1 {
			file = "d/x.txt"
		}
		res := call(t, r, `{"file": "`+file+`"}`)
		switch {
		case strings.Contains(res.Content, secret):
			leaks++
		case res.Content == "1\tpublic":
			public++
		case strings.Contains(res.Content, "outside the repository"):
			refused++
		default:
			other++ // e.g. not found while a rename was in flight
		}
	}
	wg.Wait()
	t.Logf("%d reads during %d swap cycles: %d leaked, %d public, %d refused, %d other", tries, swaps.Load(), leaks, public, refused, other)
	if leaks > 0 {
		t.Fatalf("%d of %d reads returned the secret outside the repository", leaks, tries)
	}
}
