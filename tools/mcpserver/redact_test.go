package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	const root = "/home/u/repo"
	tests := []struct {
		name, in, want string
	}{
		{"inside the root", "open /home/u/repo/pkg/a.go: permission denied", "open pkg/a.go: permission denied"},
		{"the root itself", "walk /home/u/repo: too many links", "walk .: too many links"},
		{"outside", "open /etc/passwd: permission denied", "open " + OutsidePath + ": permission denied"},
		{"sibling with the root as prefix", "stat /home/u/repository/x", "stat " + OutsidePath},
		{"quoted", `lstat "/tmp/x/y": loop`, `lstat "` + OutsidePath + `": loop`},
		{"several", "rename /home/u/repo/a /var/b", "rename a " + OutsidePath},
		{"symlink chain", "/home/u/repo/l -> /home/u/secret/f", "l -> " + OutsidePath},
		{"store dir outside", "open graph store /var/cache/relay: unable to open database file", "open graph store " + OutsidePath + ": unable to open database file"},
		{"relative paths stay", "open pkg/a.go: no such file", "open pkg/a.go: no such file"},
		{"url with a password", "cannot reach ArangoDB at http://root:pw@db.internal:8529/x: refused", "cannot reach ArangoDB at <url>: refused"},
		{"windows", `open C:\Users\u\secret.txt: denied`, "open " + OutsidePath + ": denied"},
		{"no path", "context deadline exceeded", "context deadline exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Redact(tc.in, root)); diff != "" {
				t.Errorf("Redact(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
