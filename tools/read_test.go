package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newRead(t testing.TB, o Options) *Read {
	t.Helper()
	r, err := NewRead(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRead(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	outside := t.TempDir()
	writeFile(t, outside, "secret.txt", "top secret\n")
	for name, target := range map[string]string{
		"leak":            outside,
		"leak.txt":        filepath.Join(outside, "secret.txt"),
		"greet/alias.go":  filepath.Join(root, "greet", "greet.go"),
		"dangling-leak":   filepath.Join(outside, "nothing"),
		"greet/up-and-in": "../main.go",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, root, "crlf.txt", "one\r\ntwo\r\nno newline at end")
	writeFile(t, root, "empty.txt", "")
	r := newRead(t, Options{Root: root})
	tests := []struct {
		name    string
		args    string
		want    string
		isError bool
		meta    *ReadMeta
	}{
		{
			name: "whole file",
			args: `{"file": "greet/greet.go"}`,
			want: "1\tpackage greet\n2\t\n3\t// Greet says hello.\n4\tfunc Greet(name string) string {\n5\t\tif name == \"\" {\n6\t\t\tname = \"nobody\"\n7\t\t}\n8\t\treturn \"hello \" + name\n9\t}",
			meta: &ReadMeta{File: "greet/greet.go", StartLine: 1, EndLine: 9, TotalLines: 9, Size: 133},
		},
		{
			name: "range",
			args: `{"file": "./greet/greet.go", "start_line": 3, "num_lines": 2}`,
			want: "3\t// Greet says hello.\n4\tfunc Greet(name string) string {\n(showing lines 3–4 of 9; continue with start_line=5)",
			meta: &ReadMeta{File: "greet/greet.go", StartLine: 3, EndLine: 4, TotalLines: 9, Size: 133},
		},
		{
			name: "range to the end",
			args: `{"file": "greet/greet.go", "start_line": 8, "num_lines": 50}`,
			want: "8\t\treturn \"hello \" + name\n9\t}\n(showing lines 8–9 of 9)",
		},
		{
			name: "CRLF and no final newline",
			args: `{"file": "crlf.txt"}`,
			want: "1\tone\n2\ttwo\n3\tno newline at end",
		},
		{
			name: "empty file",
			args: `{"file": "empty.txt"}`,
			want: "empty.txt is empty (0 lines).",
		},
		{
			name: "absolute path inside the root",
			args: fmt.Sprintf(`{"file": %q, "num_lines": 1}`, filepath.Join(root, "main.go")),
			want: "1\tpackage main\n(showing lines 1–1 of 11; continue with start_line=2)",
		},
		{
			name: "symlink inside the root",
			args: `{"file": "greet/alias.go", "num_lines": 1}`,
			want: "1\tpackage greet\n(showing lines 1–1 of 9; continue with start_line=2)",
		},
		{
			name: "relative symlink staying inside",
			args: `{"file": "greet/up-and-in", "num_lines": 1}`,
			want: "1\tpackage main\n(showing lines 1–1 of 11; continue with start_line=2)",
		},
		{
			name:    "past the end",
			args:    `{"file": "greet/greet.go", "start_line": 20}`,
			want:    "start_line 20 is past the end of greet/greet.go, which has 9 lines; use start_line between 1 and 9.",
			isError: true,
		},
		{
			name:    "missing file",
			args:    `{"file": "greet/nope.go"}`,
			want:    `File not found: greet/nope.go. Use glob to find the right path, e.g. {"pattern": "**/nope.go"}.`,
			isError: true,
		},
		{
			name:    "file used as a directory",
			args:    `{"file": "main.go/x"}`,
			want:    `File not found: main.go/x. Use glob to find the right path, e.g. {"pattern": "**/x"}.`,
			isError: true,
		},
		{
			name:    "directory",
			args:    `{"file": "greet/"}`,
			want:    "greet is a directory, not a file; read takes a file. It holds 4 entries:\nalias.go\ngreet.go\ngreet_test.go\nup-and-in\nRead one of these files, or use glob (e.g. {\"pattern\": \"greet/**\"}) to list files below it.",
			isError: true,
		},
		{
			name:    "binary",
			args:    `{"file": "assets/logo.bin"}`,
			want:    "assets/logo.bin looks like a binary file (NUL byte in its first 8 KB, 12 bytes in all); read only shows text files. Use grep to search text, or glob to find source files.",
			isError: true,
		},
		{
			name:    "dot-dot",
			args:    `{"file": "greet/../../etc/passwd"}`,
			want:    `path "greet/../../etc/passwd" is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)`,
			isError: true,
		},
		{
			name:    "absolute outside",
			args:    `{"file": "/etc/passwd"}`,
			want:    `path "/etc/passwd" is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)`,
			isError: true,
		},
		{
			name:    "symlinked file leaking out",
			args:    `{"file": "leak.txt"}`,
			want:    `path "leak.txt" resolves through a symlink to a place outside the repository; it cannot be used`,
			isError: true,
		},
		{
			name:    "symlinked directory leaking out",
			args:    `{"file": "leak/secret.txt"}`,
			want:    `path "leak/secret.txt" resolves through a symlink to a place outside the repository; it cannot be used`,
			isError: true,
		},
		{
			name:    "missing file behind a leaking symlink reveals nothing",
			args:    `{"file": "leak/nothing.txt"}`,
			want:    `path "leak/nothing.txt" resolves through a symlink to a place outside the repository; it cannot be used`,
			isError: true,
		},
		{
			name:    "dangling symlink pointing out",
			args:    `{"file": "dangling-leak"}`,
			want:    `path "dangling-leak" resolves through a symlink to a place outside the repository; it cannot be used`,
			isError: true,
		},
		{
			name:    "NUL byte",
			args:    `{"file": "main.go\u0000.txt"}`,
			want:    "path contains a NUL byte; pass a plain repository-relative path",
			isError: true,
		},
		{
			name:    "negative range",
			args:    `{"file": "main.go", "start_line": -3}`,
			want:    "start_line and num_lines must be positive (got start_line=-3, num_lines=0)",
			isError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkCall(t, r, tc.args, tc.want, tc.isError, tc.meta)
		})
	}
}

func TestReadCaps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	writeFile(t, root, "long.txt", b.String())
	writeFile(t, root, "wide.txt", "short\n"+strings.Repeat("x", 300_000)+"\nafter\n")
	writeFile(t, root, "bytes.txt", strings.Repeat(strings.Repeat("y", 99)+"\n", 100))
	r := newRead(t, Options{Root: root, ReadMaxBytes: 1000})
	r2 := newRead(t, Options{Root: root})

	res := call(t, r2, `{"file": "long.txt"}`)
	m := res.Meta.(*ReadMeta)
	if m.StartLine != 1 || m.EndLine != 2000 || m.TotalLines != 5000 || !m.Truncated {
		t.Errorf("meta = %+v, want lines 1–2000 of 5000, truncated", m)
	}
	if !strings.HasPrefix(res.Content, "   1\tline 1\n") || !strings.HasSuffix(res.Content, "2000\tline 2000\n(showing lines 1–2000 of 5000; continue with start_line=2001)") {
		t.Errorf("content starts %q, ends %q", res.Content[:20], res.Content[len(res.Content)-80:])
	}

	res = call(t, r2, `{"file": "long.txt", "start_line": 4999}`)
	if res.Content != "4999\tline 4999\n5000\tline 5000\n(showing lines 4999–5000 of 5000)" {
		t.Errorf("tail: %q", res.Content)
	}

	res = call(t, r2, `{"file": "wide.txt"}`)
	want := "1\tshort\n2\t" + strings.Repeat("x", DefaultReadLineBytes) + " … [line cut, 298000 more bytes]\n3\tafter"
	if res.Content != want {
		t.Errorf("wide line: got %d bytes ending %q", len(res.Content), res.Content[max(0, len(res.Content)-60):])
	}

	res = call(t, r, `{"file": "bytes.txt"}`)
	m = res.Meta.(*ReadMeta)
	if m.EndLine != 10 || !m.Truncated || !strings.HasSuffix(res.Content, "(showing lines 1–10 of 100; continue with start_line=11)") {
		t.Errorf("byte cap: meta %+v, content ends %q", m, res.Content[max(0, len(res.Content)-70):])
	}
}

func TestReadHugeFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(strings.Repeat("z", 99)+"\n", 10_000)) // 1 MB
	for range 50 {
		f.Write(chunk)
	}
	f.Close()
	r := newRead(t, Options{Root: root})
	res := call(t, r, `{"file": "huge.log", "start_line": 250000, "num_lines": 2}`)
	want := "250000\t" + strings.Repeat("z", 99) + "\n250001\t" + strings.Repeat("z", 99) + "\n(showing lines 250000–250001 of 500000; continue with start_line=250002)"
	if res.Content != want {
		t.Errorf("got %.200q", res.Content)
	}
}

func TestReadDirectoryListingCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 60 {
		writeFile(t, root, fmt.Sprintf("d/f%02d.txt", i), "x")
	}
	writeFile(t, root, "d/sub/x.txt", "x")
	res := call(t, newRead(t, Options{Root: root}), `{"file": "d"}`)
	if !res.IsError || !strings.Contains(res.Content, "It holds 61 entries:\nf00.txt\n") || !strings.Contains(res.Content, "f49.txt\n… and 11 more\n") {
		t.Errorf("got %q", res.Content)
	}
}

// TestReadPrivateDirs: read opened .git/config (a remote URL's token, the
// http.extraheader CI checkouts write) and relay's own .relay files
// (transcripts of past runs), which grep and glob already leave out. They
// are refused by name at any depth, through a symbolic link and through a
// directory listing.
func TestReadPrivateDirs(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	writeFile(t, root, ".git/config", "[remote \"origin\"]\n\turl = https://x-access-token:ghp_secret@github.com/acme/shop.git\n")
	writeFile(t, root, ".relay/runs/1.jsonl", "{\"role\":\"user\"}\n")
	writeFile(t, root, "sub/.git", "gitdir: /home/someone/main/.git/worktrees/sub\n")
	writeFile(t, root, "vendor/x/.git/HEAD", "ref: refs/heads/main\n")
	for name, target := range map[string]string{
		"cfg":      ".git/config",
		"gitdir":   ".git",
		"runs-dir": filepath.Join(root, ".relay", "runs"),
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := newRead(t, Options{Root: root})
	gitText := " is inside .git, which holds git's own files (its configuration may hold credentials), not the repository's sources; the tools do not read it. Use glob or grep to find a source file."
	relayText := " is inside .relay, which holds relay's own index, review feedback and run transcripts, not the repository's sources; the tools do not read it. Use glob or grep to find a source file."
	tests := []struct {
		name, file, want string
	}{
		{"git config", ".git/config", ".git/config" + gitText},
		{"git folder", ".git", ".git" + gitText},
		{"unclean path", "./greet/../.git//config", ".git/config" + gitText},
		{"worktree .git file", "sub/.git", "sub/.git" + gitText},
		{"nested repository", "vendor/x/.git/HEAD", "vendor/x/.git/HEAD" + gitText},
		{"transcript", ".relay/runs/1.jsonl", ".relay/runs/1.jsonl" + relayText},
		{"link to git config", "cfg", "cfg" + gitText},
		{"link to the git folder", "gitdir/config", "gitdir/config" + gitText},
		{"absolute link into .relay", "runs-dir/1.jsonl", "runs-dir/1.jsonl" + relayText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args, _ := json.Marshal(ReadParams{File: tc.file})
			checkCall[ReadMeta](t, r, string(args), tc.want, true, nil)
		})
	}
	// relay's store or state directory inside the repository under another
	// name: grep and glob skip it by its .gitignore, read by Options.Private.
	writeFile(t, root, "build/relay/runs/2.jsonl", "{\"role\":\"user\"}\n")
	rp := newRead(t, Options{Root: root, Private: []string{"./build/relay/", "../outside", ""}})
	for _, file := range []string{"build/relay/runs/2.jsonl", "build/relay", "./build//relay/runs"} {
		args, _ := json.Marshal(ReadParams{File: file})
		res, err := rp.Call(t.Context(), args)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Content, " is inside build/relay, which holds relay's own index, review feedback and run transcripts") {
			t.Errorf("read %s with build/relay private: %q", file, res.Content)
		}
	}
	if res, _ := rp.Call(t.Context(), json.RawMessage(`{"file": "build"}`)); strings.Contains(res.Content, "relay/") {
		t.Errorf("the listing of build shows the private folder:\n%s", res.Content)
	}
	res, err := r.Call(t.Context(), json.RawMessage(`{"file": "."}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "\n.git/") || strings.Contains(res.Content, "\n.relay/") || !strings.Contains(res.Content, "\ngreet/") {
		t.Errorf("the root's listing shows a private folder, or lacks greet/:\n%s", res.Content)
	}
}
