package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/confine"
	"github.com/relayhq/relay/internal/testutil"
)

// TestGrepSymlinkSwapRace is the sandbox-race probe for grep: rg lists the
// files, then opens each by name, so a file swapped for a symbolic link
// to a secret outside the repository between the two was read (1 of 300
// greps, unconfined). Confined to the repository (internal/confine), the
// open fails and none of 600 greps returns the secret.
func TestGrepSymlinkSwapRace(t *testing.T) {
	t.Parallel()
	if !confine.Available() {
		t.Skip("Landlock is not available on this kernel: rg runs unconfined")
	}
	testutil.Need(t, InstallHint, "rg")
	root, outside := t.TempDir(), t.TempDir()
	const secret = "TOP-SECRET-CONTENT"
	g := newGrep(t, Options{Root: root})
	const tries = 600
	leaks, public := 0, 0
	swaps := testutil.SymlinkSwapRace(t, root, outside, secret, tries, func(string) {
		res := call(t, g, `{"pattern": "SECRET|public"}`)
		if strings.Contains(res.Content, secret) {
			leaks++
		}
		if strings.Contains(res.Content, "public") {
			public++
		}
	})
	t.Logf("%d greps during %d swap cycles: %d leaked, %d found the public lines", tries, swaps, leaks, public)
	if leaks > 0 {
		t.Fatalf("%d of %d greps returned the secret outside the repository", leaks, tries)
	}
	if public == 0 {
		t.Fatal("no grep found the public lines: the confined rg read nothing")
	}
}

// TestGrepHonoursIgnoreFilesAbove: a root inside a larger git work tree
// keeps the ignore rules of the directories above it, which rg reads
// outside the root (confined, it may read those files and no others).
func TestGrepHonoursIgnoreFilesAbove(t *testing.T) {
	t.Parallel()
	testutil.Need(t, InstallHint, "rg")
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, top, ".gitignore", "ignored.txt\n")
	testutil.WriteFile(t, top, "sub/kept.txt", "needle\n")
	testutil.WriteFile(t, top, "sub/ignored.txt", "needle\n")
	res := call(t, newGrep(t, Options{Root: filepath.Join(top, "sub")}), `{"pattern": "needle"}`)
	if !strings.Contains(res.Content, "kept.txt") || strings.Contains(res.Content, "ignored.txt") {
		t.Fatalf("grep in a folder of a work tree:\n%s\nwant kept.txt only (ignored.txt is in the .gitignore above)", res.Content)
	}
}
