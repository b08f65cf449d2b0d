package workspace

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHead: the commit and branch checked out, the commit alone on a
// detached head, nothing outside a repository.
func TestHead(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	w := New(Options{Root: root})
	if c, b := w.Head(t.Context()); c != "" || b != "" {
		t.Errorf("outside a repository: %q, %q; want nothing", c, b)
	}
	git("init", "-q", "-b", "trunk")
	git("commit", "-q", "--allow-empty", "-m", "first")
	want := git("rev-parse", "HEAD")
	if c, b := w.Head(t.Context()); c != want || b != "trunk" {
		t.Errorf("on trunk: %q, %q; want %q, trunk", c, b, want)
	}
	git("checkout", "-q", "--detach")
	if c, b := w.Head(t.Context()); c != want || b != "" {
		t.Errorf("detached: %q, %q; want %q and no branch", c, b, want)
	}
}
