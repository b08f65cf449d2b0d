package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// TestReadSymlinkSwapRace is the probe: while read runs 600 times,
// a goroutine keeps swapping a file for a symlink to a secret outside the
// repository (and a directory for a symlink to the outside directory). A
// check-then-open sandbox leaked the secret in some of the 600 reads; an
// open beneath the root in one step leaks none.
func TestReadSymlinkSwapRace(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	const secret = "TOP-SECRET-CONTENT"
	r := newRead(t, Options{Root: root})
	const tries = 600
	var leaks, public, refused, other int
	swaps := testutil.SymlinkSwapRace(t, root, outside, secret, tries, func(file string) {
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
	})
	t.Logf("%d reads during %d swap cycles: %d leaked, %d public, %d refused, %d other", tries, swaps, leaks, public, refused, other)
	if leaks > 0 {
		t.Fatalf("%d of %d reads returned the secret outside the repository", leaks, tries)
	}
}

// callWithin is call that fails the test when the call has not returned
// within d (and leaves the stuck call behind rather than hanging the test).
func callWithin(t *testing.T, tool Tool, args string, d time.Duration) Result {
	t.Helper()
	type out struct {
		res Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := tool.Call(t.Context(), []byte(args))
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatalf("%s %s: %v", tool.Name(), args, o.err)
		}
		return o.res
	case <-time.After(d):
		t.Fatalf("%s %s did not return within %s", tool.Name(), args, d)
	}
	return Result{}
}

// TestReadTimeout: the per-call deadline stops a read of a large file.
func TestReadTimeout(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "big.txt", strings.Repeat(strings.Repeat("z", 99)+"\n", 200_000)) // 20 MB
	r := newRead(t, Options{Root: root, Timeout: time.Nanosecond})
	res := callWithin(t, r, `{"file": "big.txt", "start_line": 199000}`, time.Minute)
	want := "read of big.txt stopped at the 1ns timeout; ask for a smaller range with start_line and num_lines."
	if !res.IsError || res.Content != want {
		t.Errorf("got IsError=%v %q, want %q", res.IsError, res.Content, want)
	}
}

// TestReadPathErrors: read answers a refused path with safefs's message
// (the full table of loops, long names and links out is
// internal/safefs's TestReadFileErrors), naming the repository-relative
// path, never an absolute one; the root itself is listed.
func TestReadPathErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "ok.txt", "fine\n")
	for name, target := range map[string]string{
		"loop-a":  "loop-a",
		"abs-in":  filepath.Join(root, "ok.txt"),
		"abs-out": "/etc/passwd",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := newRead(t, Options{Root: root})
	longName := strings.Repeat("n", 300)
	tests := []struct {
		name, file, want string
	}{
		{"loop", "loop-a", `path "loop-a" goes through a symlink loop (too many levels of symbolic links); it cannot be used`},
		{"name over 255 bytes", longName, `path "` + longName[:200] + `"… (300 bytes) is too long (a name in it is over 255 bytes, or it has too many components); pass a shorter repository-relative path`},
		{"absolute link inside", "abs-in", "1\tfine"},
		{"absolute link outside", "abs-out", `path "abs-out" resolves through a symlink to a place outside the repository; it cannot be used`},
		{"absolute root", root, "the repository root is a directory, not a file; read takes a file. It holds 4 entries:\nabs-in\nabs-out\nloop-a\nok.txt\nRead one of these files, or use glob (e.g. {\"pattern\": \"**\"}) to list files below it."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(ReadParams{File: tc.file})
			res := call(t, r, string(args))
			if diff := cmp.Diff(tc.want, res.Content); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if strings.Contains(res.Content, root) || strings.Contains(res.Content, "/etc") {
				t.Errorf("answer reveals an absolute path: %q", res.Content)
			}
		})
	}
}
