package tools

import (
	"path/filepath"
	"testing"
)

func TestCleanStderr(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "repo")
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"inside the root", "rg: " + root + "/sub/x.go: Permission denied (os error 13)\n", "rg: sub/x.go: Permission denied (os error 13)"},
		{"relative path kept", "rg: ./x.go: Permission denied (os error 13)", "rg: ./x.go: Permission denied (os error 13)"},
		{"ignore file above", filepath.Dir(root) + "/.gitignore: line 1: error parsing glob 'SECRET{x': unclosed alternate group\n",
			"(1 line(s) of the message named files outside the repository and were withheld)"},
		{"climbing out", "rg: ../.gitignore: Permission denied", "(1 line(s) of the message named files outside the repository and were withheld)"},
		{"sibling of the root", "rg: " + root + "2/x: denied", "(1 line(s) of the message named files outside the repository and were withheld)"},
		{"regex error kept", "rg: regex parse error:\n    (?:a(b)\n    ^\nerror: unclosed group",
			"rg: regex parse error:\n    (?:a(b)\n    ^\nerror: unclosed group"},
		{"mixed", "rg: /etc/shadow: denied\nrg: " + root + "/a: denied",
			"rg: a: denied\n(1 line(s) of the message named files outside the repository and were withheld)"},
		{"fd", "[fd error]: /home/u/.config/fd/ignore: bad", "(1 line(s) of the message named files outside the repository and were withheld)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanStderr(tt.in, root); got != tt.want {
				t.Errorf("cleanStderr(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}
