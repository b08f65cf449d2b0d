package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newGlob(t *testing.T, o Options) *Glob {
	t.Helper()
	needTools(t)
	if o.Root == "" {
		o.Root = fixture(t)
	}
	g, err := NewGlob(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGlob(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	outside := t.TempDir()
	writeFile(t, outside, "secret.go", "package secret\n")
	if err := os.Symlink(outside, filepath.Join(root, "leak")); err != nil {
		t.Fatal(err)
	}
	g := newGlob(t, Options{Root: root})
	tests := []struct {
		name    string
		args    string
		want    string
		isError bool
		meta    *GlobMeta
	}{
		{
			name: "file names anywhere, newest first",
			args: `{"pattern": "*.go"}`,
			want: `4 files match "*.go" (newest first):
net/http/server.go
greet/greet_test.go
greet/greet.go
main.go`,
			meta: &GlobMeta{Pattern: "*.go", Files: 4, Shown: 4},
		},
		{
			name: "double star at any depth",
			args: `{"pattern": "**/*_test.go"}`,
			want: "1 file matches \"**/*_test.go\" (newest first):\ngreet/greet_test.go",
		},
		{
			name: "anchored path",
			args: `{"pattern": "net/http/*.go"}`,
			want: "1 file matches \"net/http/*.go\" (newest first):\nnet/http/server.go",
		},
		{
			name: "single star does not cross a slash",
			args: `{"pattern": "net/*.go"}`,
			want: `No files match "net/*.go". With a slash the pattern matches from the repository root; prefix "**/" to match at any depth.`,
		},
		{
			name: "directory name lists everything below",
			args: `{"pattern": "greet"}`,
			want: "2 files match \"greet\" (newest first):\ngreet/greet_test.go\ngreet/greet.go",
		},
		{
			name: "braces and hidden files; ignored files skipped",
			args: `{"pattern": "*.{yml,yaml,log}"}`,
			want: "2 files match \"*.{yml,yaml,log}\" (newest first):\n.github/ci.yml\nconfig/app.yaml",
		},
		{
			name: "spaces in names",
			args: `{"pattern": "weird name/*"}`,
			want: "1 file matches \"weird name/*\" (newest first):\nweird name/space.txt",
		},
		{
			name: "leading ./ and absolute paths inside the root",
			args: fmt.Sprintf(`{"pattern": %q}`, filepath.Join(root, "greet", "*.go")),
			want: fmt.Sprintf("2 files match %q (newest first):\ngreet/greet_test.go\ngreet/greet.go", filepath.Join(root, "greet", "*.go")),
		},
		{
			name: "limit",
			args: `{"pattern": "*", "limit": 3}`,
			want: `12 files match "*" (newest first, showing 3):
weird name/space.txt
assets/logo.bin
.gitignore
truncated: 9 more files, narrow the pattern.`,
			meta: &GlobMeta{Pattern: "*", Files: 12, Shown: 3, Truncated: 9},
		},
		{
			name: "symlinked directory is not followed",
			args: `{"pattern": "**/secret.go"}`,
			want: `No files match "**/secret.go".`,
		},
		{
			name: "no match",
			args: `{"pattern": "*.nothing"}`,
			want: `No files match "*.nothing". Without a slash the pattern matches file names only; use "**/dir/*.ext" to match directories.`,
		},
		{
			name:    "bad glob",
			args:    `{"pattern": "[z"}`,
			want:    "Invalid glob \"[z\": [fd error]: error parsing glob '[z': unclosed character class; missing ']'\nHint: use patterns such as \"*.go\", \"**/*_test.go\" or \"net/http/*.go\".",
			isError: true,
		},
		{
			name:    "parent directory",
			args:    `{"pattern": "../*"}`,
			want:    `pattern "../*" contains ".."; patterns are relative to the repository root and cannot leave it`,
			isError: true,
		},
		{
			name:    "absolute outside",
			args:    `{"pattern": "/etc/*"}`,
			want:    `pattern "/etc/*" is outside the repository; patterns are relative to the repository root (e.g. "net/http/*.go")`,
			isError: true,
		},
		{
			name:    "NUL byte",
			args:    `{"pattern": "*.go\u0000"}`,
			want:    "pattern contains a NUL byte; pass a plain pattern",
			isError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkCall(t, g, tc.args, tc.want, tc.isError, tc.meta)
		})
	}
}

func TestGlobRespectsGitignoreInGitRepo(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := newGlob(t, Options{Root: root})
	res := call(t, g, `{"pattern": "**/skip.go"}`)
	if res.Content != `No files match "**/skip.go".` {
		t.Errorf("ignored file listed: %q", res.Content)
	}
}

func TestGlobThenReadDeletedFile(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	g := newGlob(t, Options{Root: root})
	r, err := NewRead(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, g, `{"pattern": "**/greet.go"}`)
	if !strings.Contains(res.Content, "greet/greet.go") {
		t.Fatalf("glob: %q", res.Content)
	}
	if err := os.Remove(filepath.Join(root, "greet", "greet.go")); err != nil {
		t.Fatal(err)
	}
	res = call(t, r, `{"file": "greet/greet.go"}`)
	want := `File not found: greet/greet.go. Use glob to find the right path, e.g. {"pattern": "**/greet.go"}.`
	if !res.IsError || res.Content != want {
		t.Errorf("got IsError=%v %q, want %q", res.IsError, res.Content, want)
	}
}

func TestGlobCapsBytes(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	for i := range 300 {
		writeFile(t, root, fmt.Sprintf("d/%s%03d.txt", strings.Repeat("n", 40), i), "x")
	}
	g := newGlob(t, Options{Root: root, MaxOutputBytes: 1000})
	res := call(t, g, `{"pattern": "*.txt", "limit": 2000}`)
	m := res.Meta.(*GlobMeta)
	if m.Files != 300 || m.Shown == 0 || m.Shown > 1000/45 || m.Truncated != 300-m.Shown {
		t.Errorf("meta = %+v", m)
	}
	if !strings.HasSuffix(res.Content, fmt.Sprintf("truncated: %d more files, narrow the pattern.", m.Truncated)) {
		t.Errorf("no truncation line: %q", res.Content[max(0, len(res.Content)-100):])
	}
}
