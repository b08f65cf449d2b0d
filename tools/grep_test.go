package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newGrep(t *testing.T, o Options) *Grep {
	t.Helper()
	needTools(t)
	if o.Root == "" {
		o.Root = fixture(t)
	}
	g, err := NewGrep(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGrep(t *testing.T) {
	t.Parallel()
	g := newGrep(t, Options{})
	tests := []struct {
		name    string
		args    string
		want    string
		isError bool
		meta    GrepMeta
	}{
		{
			name: "go files without context",
			args: `{"pattern": "Greet", "include": "*.go", "context": 0}`,
			want: `5 matching lines in 3 files for "Greet" in "*.go":
greet/greet.go:3:// Greet says hello.
greet/greet.go:4:func Greet(name string) string {

greet/greet_test.go:5:func TestGreet(t *testing.T) {
greet/greet_test.go:6:	if Greet("x") != "hello x" {

main.go:10:	fmt.Println(greet.Greet("world"))`,
			meta: GrepMeta{Pattern: "Greet", Include: "*.go", Matches: 5, Files: 3, Shown: 5},
		},
		{
			name: "sql, directory include, default context",
			args: `{"pattern": "greeting", "include": "db"}`,
			want: `1 matching line in 1 file for "greeting" in "db":
db/schema.sql-1-CREATE TABLE users (
db/schema.sql-2-  id INTEGER PRIMARY KEY,
db/schema.sql:3:  greeting TEXT
db/schema.sql-4-);`,
			meta: GrepMeta{Pattern: "greeting", Include: "db", Matches: 1, Files: 1, Shown: 1},
		},
		{
			name: "config and docs, case-insensitive, path glob",
			args: `{"pattern": "(?i)^\\s*greeting:", "include": "config/**", "context": 0}`,
			want: `1 matching line in 1 file for "(?i)^\\s*greeting:" in "config/**":
config/app.yaml:2:  greeting: hello`,
			meta: GrepMeta{Pattern: `(?i)^\s*greeting:`, Include: "config/**", Matches: 1, Files: 1, Shown: 1},
		},
		{
			name: "limit truncates by path order; hidden files searched, ignored and binary skipped",
			args: `{"pattern": "Greet", "limit": 2, "context": 1}`,
			want: `7 matching lines in 5 files for "Greet"; showing the first 2 by path:
.github/ci.yml-1-name: ci
.github/ci.yml:2:# Greet in a hidden dir

docs/guide.md-2-
docs/guide.md:3:Call Greet to say hello.
truncated: 5 more matches, narrow the pattern or add include (e.g. "include": "*.go").`,
			meta: GrepMeta{Pattern: "Greet", Matches: 7, Files: 5, Shown: 2, Truncated: 5},
		},
		{
			name: "trailing context of the last shown match, runs separated",
			args: `{"pattern": "Greet|nobody", "include": "greet/greet.go", "limit": 2, "context": 1}`,
			want: `3 matching lines in 1 file for "Greet|nobody" in "greet/greet.go"; showing the first 2 by path:
greet/greet.go-2-
greet/greet.go:3:// Greet says hello.
greet/greet.go:4:func Greet(name string) string {
greet/greet.go-5-	if name == "" {
truncated: 1 more matches, narrow the pattern or add include.`,
			meta: GrepMeta{Pattern: "Greet|nobody", Include: "greet/greet.go", Matches: 3, Files: 1, Shown: 2, Truncated: 1},
		},
		{
			name: "no match is a normal answer",
			args: `{"pattern": "zzz_never_there_[0-9]{40}"}`,
			want: `No matches for "zzz_never_there_[0-9]{40}". The pattern is a case-sensitive regex: try (?i), a shorter pattern, or drop include.`,
			meta: GrepMeta{Pattern: "zzz_never_there_[0-9]{40}", ExitCode: 1},
		},
		{
			name:    "bad regex",
			args:    `{"pattern": "Serve("}`,
			want:    "Invalid regex for grep \"Serve(\":\nregex parse error:\n    Serve(\n         ^\nerror: unclosed group\nHint: the pattern is a Rust regex; escape metacharacters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally (e.g. \"Serve\\\\(\"), or use a shorter pattern.",
			isError: true,
			meta:    GrepMeta{Pattern: "Serve(", ExitCode: 2},
		},
		{
			name:    "bad include glob",
			args:    `{"pattern": "x", "include": "[a"}`,
			want:    "Invalid include glob for grep \"x\" in \"[a\":\nerror parsing glob '[a': unclosed character class; missing ']'\nHint: include is a glob such as \"*.go\", \"**/*_test.go\" or \"net/http/**\".",
			isError: true,
			meta:    GrepMeta{Pattern: "x", Include: "[a", ExitCode: 2},
		},
		{
			name:    "include leaving the root",
			args:    `{"pattern": "x", "include": "../**"}`,
			want:    `include "../**" contains ".."; patterns are relative to the repository root and cannot leave it`,
			isError: true,
		},
		{
			name:    "negative limit refused, as graph refuses a negative depth",
			args:    `{"pattern": "Greet", "limit": -3}`,
			want:    "grep limit must be positive (got -3); leave it out for the default 50, at most 1000",
			isError: true,
		},
		{
			name:    "negative context refused",
			args:    `{"pattern": "Greet", "context": -1}`,
			want:    "grep context must be 0 or more (got -1); leave it out for the default 2, at most 20",
			isError: true,
		},
		{
			name:    "NUL in pattern",
			args:    `{"pattern": "a\u0000b"}`,
			want:    "pattern contains a NUL byte; pass a plain pattern",
			isError: true,
		},
		{
			name:    "huge regex refused before rg runs",
			args:    fmt.Sprintf(`{"pattern": %q}`, strings.Repeat("(a|b)", 500)),
			want:    "pattern is 2500 bytes long (limit 2000); use a shorter pattern",
			isError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var meta *GrepMeta // checked only where the case sets it
			if tc.meta.Pattern != "" {
				meta = &tc.meta
			}
			checkCall(t, g, tc.args, tc.want, tc.isError, meta)
		})
	}
}

func TestGrepRegexTooBigForRg(t *testing.T) {
	t.Parallel()
	g := newGrep(t, Options{})
	// Short to type, huge once compiled: rg refuses it with exit status 2.
	res := call(t, g, `{"pattern": "(\\w{100}){100}"}`)
	if !res.IsError || !strings.Contains(res.Content, "Invalid regex") || !strings.Contains(res.Content, "size limit") {
		t.Fatalf("got IsError=%v %q, want an invalid-regex error about the size limit", res.IsError, res.Content)
	}
}

func TestGrepCapsLinesAndBytes(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	long := "var x = \"" + strings.Repeat("é", 5000) + "\" // needle\n"
	var many strings.Builder
	for i := range 400 {
		fmt.Fprintf(&many, "needle line %d %s\n", i, strings.Repeat("x", 200))
	}
	writeFile(t, root, "min.js", long)
	writeFile(t, root, "many.txt", many.String())
	g := newGrep(t, Options{Root: root, MaxOutputBytes: 4096})

	res := call(t, g, `{"pattern": "needle", "include": "min.js"}`)
	if !strings.Contains(res.Content, "min.js:1:var x = \"éé") || !strings.Contains(res.Content, "… [line cut, ") {
		t.Errorf("long line not cut:\n%.400s", res.Content)
	}
	if len(res.Content) > 600 {
		t.Errorf("content is %d bytes, want the 10 KB line cut to about 300", len(res.Content))
	}

	res = call(t, g, `{"pattern": "needle", "include": "many.txt", "limit": 1000, "context": 0}`)
	m := res.Meta.(*GrepMeta)
	if len(res.Content) > 4096+300 {
		t.Errorf("content is %d bytes, want at most the 4096-byte cap plus the footer", len(res.Content))
	}
	if m.Matches != 400 || m.Shown == 0 || m.Shown >= 400 || m.Truncated != 400-m.Shown {
		t.Errorf("meta = %+v, want 400 matches, some shown, the rest truncated", m)
	}
	if want := fmt.Sprintf("truncated: %d more matches, narrow the pattern or add include.", m.Truncated); !strings.HasSuffix(res.Content, want) {
		t.Errorf("content ends %q, want %q", res.Content[max(0, len(res.Content)-120):], want)
	}
}

func TestGrepLargeFile(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("abcdefghij", 9) + "\n" // 91 bytes
	chunk := strings.Repeat(line, 1000)
	for range 50 << 20 / len(chunk) {
		f.WriteString(chunk)
	}
	f.WriteString("the needle is here\n")
	f.Close()
	g := newGrep(t, Options{Root: root})
	res := call(t, g, `{"pattern": "needle", "context": 0}`)
	if !strings.Contains(res.Content, ":the needle is here") || res.IsError {
		t.Fatalf("got IsError=%v %q", res.IsError, res.Content)
	}
}

func TestGrepCancelledContext(t *testing.T) {
	t.Parallel()
	g := newGrep(t, Options{})
	ctx, cancel := contextWithCancel(t)
	cancel()
	if _, err := g.Call(ctx, []byte(`{"pattern": "Greet"}`)); err == nil {
		t.Fatal("a cancelled run gave no error")
	}
}

func writeFile(t testing.TB, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGrepDoesNotFollowSymlinksOut(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	outside := t.TempDir()
	writeFile(t, outside, "secret.txt", "the password is hunter2\n")
	if err := os.Symlink(outside, filepath.Join(root, "leakdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	g := newGrep(t, Options{Root: root})
	for _, args := range []string{`{"pattern": "hunter2"}`, `{"pattern": "hunter2", "include": "leakdir/**"}`, `{"pattern": "hunter2", "include": "leak.txt"}`} {
		res := call(t, g, args)
		if strings.Contains(res.Content, "hunter2") && !strings.HasPrefix(res.Content, "No matches") {
			t.Errorf("%s leaked: %q", args, res.Content)
		}
	}
}
