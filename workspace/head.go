package workspace

import (
	"context"
	"os/exec"
	"strings"
)

// Head is the commit and branch checked out in the repository, or "" for
// what git cannot tell (not a repository, a detached head): what a posted
// report names as the code it read.
func (w *Workspace) Head(ctx context.Context) (commit, branch string) {
	root := w.o.Root
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--verify", "--quiet", "HEAD").Output()
	if err != nil {
		return "", ""
	}
	commit = strings.TrimSpace(string(out))
	if out, err := exec.CommandContext(ctx, "git", "-C", root, "symbolic-ref", "--quiet", "--short", "HEAD").Output(); err == nil {
		branch = strings.TrimSpace(string(out))
	}
	return commit, branch
}
