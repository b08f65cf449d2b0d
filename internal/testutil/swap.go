package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// WriteFile writes body to dir/rel (slash-separated), making the
// directories it needs.
func WriteFile(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SwapPublic is what the swapped files hold while they are regular.
const SwapPublic = "public\n"

// SymlinkSwapRace is the sandbox-race probe: root gets x.txt and
// real/x.txt (SwapPublic) and d → real, outside gets x.txt holding secret;
// then a goroutine runs tries cycles that swap x.txt for a symbolic link
// to outside/x.txt and d for a link to outside, and back, while read is
// called tries times, kept in step with the swaps so the two overlap all
// along. read gets "x.txt" and "d/x.txt" in turn. Every rename is atomic:
// at any moment x.txt is a regular file or a link out, d points inside or
// outside. It returns the number of swap cycles run.
func SymlinkSwapRace(t testing.TB, root, outside, secret string, tries int, read func(file string)) int64 {
	t.Helper()
	WriteFile(t, outside, "x.txt", secret+"\n")
	WriteFile(t, root, "x.txt", SwapPublic)
	WriteFile(t, root, "real/x.txt", SwapPublic)
	if err := os.Symlink("real", filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	x, d, tmp := filepath.Join(root, "x.txt"), filepath.Join(root, "d"), filepath.Join(root, ".swap")
	return inStep(tries, func() {
		os.Symlink(filepath.Join(outside, "x.txt"), tmp)
		os.Rename(tmp, x)
		os.Symlink(outside, tmp)
		os.Rename(tmp, d)
		os.WriteFile(tmp, []byte(SwapPublic), 0o644)
		os.Rename(tmp, x)
		os.Symlink("real", tmp)
		os.Rename(tmp, d)
	}, func(i int) {
		if i%2 == 0 {
			read("x.txt")
		} else {
			read("d/x.txt")
		}
	})
}

// inStep runs swap tries times in a goroutine while probe runs tries
// times, the i-th probe waiting for the i-th swap to have started, so the
// two overlap all along instead of one finishing first.
func inStep(tries int, swap func(), probe func(i int)) int64 {
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for range tries {
			swap()
			swaps.Add(1)
		}
	})
	for i := range tries {
		for swaps.Load() < int64(i) {
			runtime.Gosched()
		}
		probe(i)
	}
	wg.Wait()
	return swaps.Load()
}
