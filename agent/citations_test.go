package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindBadCitations(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"pkg/a.go": "1\n2\n3\n", "b.py": "1\n2", "empty.txt": ""} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A cited file that is a symlink out of the repository is not followed.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("1\n2\n3\n4\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "leak.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want []Citation
	}{
		{"symlink out of the repository", "leak.go:5", []Citation{{Path: "leak.go", Line: 5, Problem: "outside the repository"}}},
		{"valid", "see pkg/a.go:3 and `b.py:2` and ./pkg/a.go:1-3", nil},
		{"no newline at end counts the last line", "b.py:2", nil},
		{"missing file", "pkg/missing.go:1", []Citation{{Path: "pkg/missing.go", Line: 1, Problem: "no such file"}}},
		{"past the end", "(pkg/a.go:4)", []Citation{{Path: "pkg/a.go", Line: 4, Problem: "line 4 is past the end; the file has 3 lines"}}},
		{"line zero", "pkg/a.go:0", []Citation{{Path: "pkg/a.go", Line: 0, Problem: "line 0 is past the end; the file has 3 lines"}}},
		{"range past the end", "pkg/a.go:2-9", []Citation{{Path: "pkg/a.go", Line: 2, EndLine: 9, Problem: "range ends at 9; the file has 3 lines"}}},
		{"escapes the repository", "../etc/passwd.txt:1", []Citation{{Path: "../etc/passwd.txt", Line: 1, Problem: "outside the repository"}}},
		{"absolute inside the root", filepath.Join(root, "pkg/a.go") + ":2", nil},
		{"directory is not a file", "pkg.d:1 pkg:1", []Citation{{Path: "pkg.d", Line: 1, Problem: "no such file"}}},
		{"URLs and times are not citations", "http://example.com:8080/x and 12:30 and v1.2:3", nil},
		{"duplicates reported once", "x.go:1 x.go:1", []Citation{{Path: "x.go", Line: 1, Problem: "no such file"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := findBadCitations(root, tc.text)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findBadCitations(%q) (-want +got):\n%s", tc.text, diff)
			}
			text, bad := checkCitations(root, tc.text)
			if (len(bad) > 0) != strings.Contains(text, "> Note: these cited locations do not exist") {
				t.Errorf("note presence does not match %d bad citations:\n%s", len(bad), text)
			}
		})
	}
}
