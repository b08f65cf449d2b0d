//go:build unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relayhq/relay/internal/testutil"
)

// TestReadFIFO: a FIFO named like source must not hang read (opening it
// would wait for a writer forever); it is refused at once, by name.
func TestReadFIFO(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "x.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := newRead(t, Options{Root: root})
	start := time.Now()
	res := callWithin(t, r, `{"file": "x.go"}`, time.Minute)
	want := "x.go is a FIFO, not a regular file; only regular files and directories can be read"
	if !res.IsError || res.Content != want {
		t.Errorf("got IsError=%v %q, want %q", res.IsError, res.Content, want)
	}
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("read of a FIFO took %s", d)
	}
}

// TestReadFIFOSwapRace swaps a regular file and a FIFO under read: a file
// that is regular when checked and a FIFO when opened must not hang either.
func TestReadFIFOSwapRace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newRead(t, Options{Root: root})
	const tries = 300
	var fifo, regular int
	swaps := testutil.FIFOSwapRace(t, root, "x.go", "package x\n", tries, func() {
		res := callWithin(t, r, `{"file": "x.go"}`, time.Minute)
		switch {
		case res.Content == "1\tpackage x":
			regular++
		case strings.Contains(res.Content, "not a regular file"):
			fifo++
		default:
			t.Errorf("unexpected answer %q", res.Content)
		}
	})
	t.Logf("%d reads during %d swap cycles: %d regular, %d refused as a FIFO", tries, swaps, regular, fifo)
}

// TestGrepIgnoreLinkAboveWithheld: an ignore file above the root that is
// a link to a file elsewhere, whose lines rg cannot parse as globs, must
// not reach the model — neither its lines nor its absolute path — whether
// rg runs confined (the link is not granted) or not (rg reads it and
// complains); the match is still found.
func TestGrepIgnoreLinkAboveWithheld(t *testing.T) {
	t.Parallel()
	needTools(t)
	top, outside := t.TempDir(), t.TempDir()
	root := filepath.Join(top, "repo")
	writeFile(t, outside, "secret.txt", "SECRET{token\n**/[TOP-SECRET\n")
	writeFile(t, root, "a.txt", "hello\n")
	writeFile(t, top, ".git/HEAD", "ref: refs/heads/main\n") // rg honours .gitignore inside a git work tree
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(top, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	for _, unconfined := range []bool{false, true} {
		t.Run(fmt.Sprint("unconfined=", unconfined), func(t *testing.T) {
			g := newGrep(t, Options{Root: root, Unconfined: unconfined})
			res := call(t, g, `{"pattern": "hello"}`)
			t.Logf("answer:\n%s", res.Content)
			if !strings.Contains(res.Content, "a.txt") {
				t.Errorf("the match is missing: %q", res.Content)
			}
			for _, leak := range []string{"SECRET", top, outside, "../"} {
				if strings.Contains(res.Content, leak) {
					t.Errorf("grep's answer contains %q:\n%s", leak, res.Content)
				}
			}
		})
	}
}
