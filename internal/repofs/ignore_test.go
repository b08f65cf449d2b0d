package repofs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// ignoreCases are git's own ignore cases (gitignore(5) and t0008-ignores):
// files maps an ignore file to its content, paths lists what is created
// (a trailing "/" makes a directory) and ignored what git ignores of it.
var ignoreCases = []struct {
	name    string
	files   map[string]string
	paths   []string
	ignored []string
}{
	{"leading **", map[string]string{".gitignore": "**/foo\n"},
		[]string{"foo", "a/foo", "a/b/foo", "afoo", "a/foox"}, []string{"foo", "a/foo", "a/b/foo"}},
	{"leading ** with a path", map[string]string{".gitignore": "**/foo/bar\n"},
		[]string{"foo/bar", "a/foo/bar", "foo/baz", "bar"}, []string{"foo/bar", "a/foo/bar"}},
	{"trailing ** matches inside, not the directory", map[string]string{".gitignore": "abc/**\n!abc/keep\n"},
		[]string{"abc/x", "abc/d/y", "abc/keep", "abcd/x"}, []string{"abc/x", "abc/d/", "abc/d/y"}},
	{"trailing ** directory only", map[string]string{".gitignore": "out/**/\n"},
		[]string{"out/f", "out/d/g"}, []string{"out/d/", "out/d/g"}},
	{"/** matches everything beneath", map[string]string{"sub/.gitignore": "/**\n"},
		[]string{"sub/a", "sub/d/b", "c"}, []string{"sub/.gitignore", "sub/a", "sub/d/", "sub/d/b"}},
	{"middle ** matches zero or more directories", map[string]string{".gitignore": "a/**/b\n"},
		[]string{"a/b", "a/x/b", "a/x/y/b", "a/bc", "c/a/b"}, []string{"a/b", "a/x/b", "a/x/y/b"}},
	{"middle ** backtracks", map[string]string{".gitignore": "a/**/b/c\n"},
		[]string{"a/b/c", "a/b/x/b/c", "a/x/b/y/b/c", "a/b/x/c", "a/c"}, []string{"a/b/c", "a/b/x/b/c", "a/x/b/y/b/c"}},
	{"leading ** backtracks", map[string]string{".gitignore": "**/foo/bar\n"},
		[]string{"x/foo/y/foo/bar", "x/foo/y/bar"}, []string{"x/foo/y/foo/bar"}},
	{"two ** and a directory-only end", map[string]string{"sub/.gitignore": "**/gen/**/tmp/\n"},
		[]string{"sub/gen/tmp/f", "sub/a/gen/b/gen/c/tmp/f", "sub/gen/x/tmp", "tmp/f"}, []string{"sub/gen/tmp/", "sub/gen/tmp/f", "sub/a/gen/b/gen/c/tmp/", "sub/a/gen/b/gen/c/tmp/f"}},
	{"issue: docs/**/draft.md", map[string]string{".gitignore": "docs/**/draft.md\n"},
		[]string{"docs/draft.md", "docs/a/b/draft.md", "docs/a/notes.md", "draft.md"}, []string{"docs/draft.md", "docs/a/b/draft.md"}},
	{"/ anchors to the .gitignore's directory", map[string]string{".gitignore": "/top.txt\n"},
		[]string{"top.txt", "sub/top.txt"}, []string{"top.txt"}},
	{"a / in the middle anchors", map[string]string{".gitignore": "doc/frotz\n"},
		[]string{"doc/frotz", "a/doc/frotz"}, []string{"doc/frotz"}},
	{"no / matches at any depth", map[string]string{".gitignore": "*.o\n"},
		[]string{"x.o", "a/b/y.o", "x.c"}, []string{"x.o", "a/b/y.o"}},
	{"trailing / matches directories only", map[string]string{".gitignore": "frotz/\n"},
		[]string{"frotz/", "a/frotz/f", "x/frotz"}, []string{"frotz/", "a/frotz/", "a/frotz/f"}},
	{"! re-includes", map[string]string{".gitignore": "*.log\n!important.log\n"},
		[]string{"a.log", "important.log", "sub/important.log", "sub/b.log"}, []string{"a.log", "sub/b.log"}},
	{"! cannot re-include inside an excluded directory", map[string]string{".gitignore": "build/\n!build/keep.txt\n"},
		[]string{"build/keep.txt", "build/x.txt"}, []string{"build/", "build/keep.txt", "build/x.txt"}},
	{"later pattern wins", map[string]string{".gitignore": "!a.txt\n*.txt\n"},
		[]string{"a.txt", "b.txt"}, []string{"a.txt", "b.txt"}},
	{"escaped # and !", map[string]string{".gitignore": "\\#hash\n\\!bang\n#comment\n"},
		[]string{"#hash", "!bang", "#comment"}, []string{"#hash", "!bang"}},
	{"trailing spaces are dropped unless escaped", map[string]string{".gitignore": "spaced   \nkeep\\ \nboth\\  \n"},
		[]string{"spaced", "keep ", "keep", "both ", "both"}, []string{"spaced", "keep ", "both "}},
	{"CRLF line ends", map[string]string{".gitignore": "a.tmp\r\nb.tmp\r\n"},
		[]string{"a.tmp", "b.tmp", "c.tmp"}, []string{"a.tmp", "b.tmp"}},
	{"? and [!...]", map[string]string{".gitignore": "?.tmp\n*.[!o]\n"},
		[]string{"a.tmp", "ab.tmp", "x.c", "x.o"}, []string{"a.tmp", "x.c"}},
	{"a nested .gitignore overrides its parent", map[string]string{".gitignore": "*.txt\n", "sub/.gitignore": "!keep.txt\n"},
		[]string{"keep.txt", "sub/keep.txt", "sub/other.txt", "sub/deep/keep.txt"}, []string{"keep.txt", "sub/other.txt"}},
	{"a nested .gitignore anchors to its directory", map[string]string{"sub/.gitignore": "/only\nx/y\n"},
		[]string{"only", "sub/only", "sub/deep/only", "sub/x/y", "x/y"}, []string{"sub/only", "sub/x/y"}},
	{"a nested .gitignore in an ignored directory is not read", map[string]string{".gitignore": "gen/\n", "gen/.gitignore": "!*\n"},
		[]string{"gen/a.go"}, []string{"gen/", "gen/.gitignore", "gen/a.go"}},
	{"info/exclude, which .gitignore overrides", map[string]string{".git/info/exclude": "*.md\nlocal/\n", ".gitignore": "!keep.md\n"},
		[]string{"a.md", "keep.md", "local/x", "sub/b.md"}, []string{"a.md", "local/", "local/x", "sub/b.md"}},
}

// TestIgnoresAgainstGit checks each case against git check-ignore and
// against Walk, which hands over ignored entries marked.
func TestIgnoresAgainstGit(t *testing.T) {
	testutil.Need(t, "install git", "git")
	for _, tc := range ignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			git(t, root, "init", "-q")
			for rel, body := range tc.files {
				testutil.WriteFile(t, root, rel, body)
			}
			for _, p := range tc.paths {
				if strings.HasSuffix(p, "/") {
					if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(p)), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				testutil.WriteFile(t, root, p, "")
			}
			want := slices.Sorted(slices.Values(tc.ignored))
			if diff := cmp.Diff(want, gitIgnored(t, root)); diff != "" {
				t.Errorf("git check-ignore disagrees with the case (-case +git):\n%s", diff)
			}
			if diff := cmp.Diff(want, walkIgnored(t, root)); diff != "" {
				t.Errorf("Walk (-git +repofs):\n%s", diff)
			}
		})
	}
}

// walkIgnored lists what Walk marks ignored (directories with a trailing
// "/"), sorted.
func walkIgnored(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := Walk(t.Context(), root, Options{VisitIgnored: true}, func(e Entry) error {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Rel, e.Err)
			return nil
		}
		if e.Ignored() {
			got = append(got, e.Rel+map[bool]string{true: "/"}[e.D.IsDir()])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// gitIgnored lists what git check-ignore says is ignored of every entry
// beneath root but .git (directories with a trailing "/"), sorted. Paths
// go to git without that "/": git would match "abc/" itself against
// "abc/**", which it never does to the directory abc while it walks.
func gitIgnored(t *testing.T, root string) []string {
	t.Helper()
	var all []string
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		all = append(all, filepath.ToSlash(rel))
		if d.IsDir() {
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "git", "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(all, "\x00") + "\x00")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: nothing ignored
		t.Fatalf("git check-ignore: %v", err)
	}
	var got []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			got = append(got, string(p)+map[bool]string{true: "/"}[dirs[string(p)]])
		}
	}
	slices.Sort(got)
	return got
}

// git runs git in dir with a clean configuration.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// goGitIgnored is what Ignores answered before match.go: go-git's matcher
// over every pattern, asked about each directory on the path from the top
// and then about the path.
func goGitIgnored(patterns []gitignore.Pattern, rel string, isDir bool) bool {
	if len(patterns) == 0 {
		return false
	}
	m := gitignore.NewMatcher(patterns)
	parts := strings.Split(rel, "/")
	for k := 1; k < len(parts); k++ {
		if m.Match(parts[:k], true) {
			return true
		}
	}
	return m.Match(parts, isDir)
}

// FuzzIgnoresAgainstGoGit: Ignored answers as go-git's matcher asked
// about every directory on the path does, for any ignore files and path,
// asked in any order.
func FuzzIgnoresAgainstGoGit(f *testing.F) {
	for _, tc := range ignoreCases {
		for dir, body := range tc.files {
			for _, p := range tc.paths {
				f.Add(body, path.Dir(dir), "*.o\n!keep/\n", p, strings.HasSuffix(p, "/"))
			}
		}
	}
	f.Add("bin\n*.java.hsp\n/build\nspring-*/src/main/java/META-INF/MANIFEST.MF\n", "a", "!*.md\ntarget/\n", "a/spring-x/src/main/java/META-INF/MANIFEST.MF", false)
	f.Add("[\n\\\n!\n/**/\n**\n*[\n", "", "!a\n", "a/b/[x", false)
	f.Add("x\\ \n\\!y\n?.c\n", "sub", "", "/sub//x ", true)
	f.Fuzz(func(t *testing.T, top, dir, nested, rel string, isDir bool) {
		var ig Ignores
		var patterns []gitignore.Pattern
		add := func(dir, body string) {
			var domain []string
			if dir != "." && dir != "" {
				domain = strings.Split(dir, "/")
			}
			for _, line := range strings.Split(body, "\n") {
				if p, ok := patternOf(line); ok {
					patterns = append(patterns, parsePattern(p, domain))
				}
			}
			ig.Add(dir, []byte(body))
		}
		add("", top)
		// Ask before the second file is read: its Add must drop what was
		// remembered.
		_ = ig.Ignored(rel, isDir)
		add(dir, nested)
		want := goGitIgnored(patterns, rel, isDir)
		for _, k := range []int{1, 2} {
			if got := ig.Ignored(rel, isDir); got != want {
				t.Fatalf("ask %d: Ignored(%q, %v) = %v, go-git %v", k, rel, isDir, got, want)
			}
		}
		// Every directory above, and the path as the other kind.
		for i := range rel {
			if rel[i] == '/' {
				if got, want := ig.Ignored(rel[:i], true), goGitIgnored(patterns, rel[:i], true); got != want {
					t.Fatalf("Ignored(%q, true) = %v, go-git %v", rel[:i], got, want)
				}
			}
		}
		if got, want := ig.Ignored(rel, !isDir), goGitIgnored(patterns, rel, !isDir); got != want {
			t.Fatalf("Ignored(%q, %v) = %v, go-git %v", rel, !isDir, got, want)
		}
	})
}
