package tools

import (
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
