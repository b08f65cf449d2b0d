//go:build cgo

package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/pathcorpus"
)

// javaHangGuard bounds the tests below: a hang guard, far above what
// they take.
const javaHangGuard = 60 * time.Second

// corpusFile writes the pathological file of the corpus kind name beneath
// a new directory and returns the directory and the file's path in it.
func corpusFile(t *testing.T, name string) (string, string) {
	t.Helper()
	for _, k := range pathcorpus.Kinds() {
		if k.Name == name {
			dir := t.TempDir()
			if err := k.Write(dir); err != nil {
				t.Fatal(err)
			}
			return dir, k.File
		}
	}
	t.Fatalf("no kind %s in the corpus", name)
	return "", ""
}

// TestJavaParseCancelled: the Java frontend parses under the run's
// context, so a cancelled run (Ctrl-C, a timeout's SIGTERM) stops the
// parse of a large file at once: nothing is extracted and nothing is
// reported about the file. The parse used to run to its end whatever the
// context said.
func TestJavaParseCancelled(t *testing.T) {
	dir, rel := corpusFile(t, "java-wide-100000")
	rf, err := openRepoFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	var said []Diagnostic
	j := &frontend.Job{Read: rf.read, Budget: budgetsOf(Options{}),
		Note: func(d Diagnostic) { said = append(said, d) }, Diag: func(d Diagnostic) { said = append(said, d) }}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ps := newJavaParser()
	defer ps.Close()
	got := make(chan *javaFile, 1)
	go func() { got <- (&javaFrontend{}).parseFile(ctx, j, ps, rel, nil, true) }()
	select {
	case f := <-got:
		if f != nil {
			t.Errorf("a cancelled run extracted %s: %d nodes", rel, len(f.res.Nodes))
		}
		if len(said) != 0 {
			t.Errorf("a cancelled run reported %+v", said)
		}
	case <-time.After(javaHangGuard):
		t.Fatalf("the parse of %s went on %v after the run was cancelled", rel, javaHangGuard)
	}
}

// TestJavaFileBudgets: a Java file over the size limit, or one that
// looks minified, is not parsed: it is listed under Summary.Notes with
// its file node only, and the repository's other Java file is indexed.
// Java files used to be parsed whatever their size.
func TestJavaFileBudgets(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("class Big {")
	for wide.Len() < 70<<10 {
		wide.WriteString(" int m() { return 1; }")
	}
	wide.WriteString("}\n")
	for _, tc := range []struct {
		name string
		opts Options
		src  string
		want string
	}{
		{"over the limit", Options{MaxFileBytes: 1024}, strings.Repeat("class Big { int m() { return 1; } }\n", 100), "over the 1 KiB file-size limit"},
		{"minified", Options{}, wide.String(), "looks minified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, src := range map[string]string{"Big.java": tc.src, "Ok.java": "class Ok { int ok() { return 1; } }\n"} {
				if err := os.WriteFile(filepath.Join(dir, rel), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			st := openStore(t)
			tc.opts.Root = dir
			sum, err := Run(t.Context(), st, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Notes) != 1 || sum.Notes[0].Pos != "Big.java" || !strings.Contains(sum.Notes[0].Msg, tc.want) {
				t.Errorf("notes %+v, want Big.java: %s", sum.Notes, tc.want)
			}
			if len(sum.Errors) != 0 {
				t.Errorf("errors %+v, want none", sum.Errors)
			}
			for _, c := range []struct {
				file string
				want int
			}{{"Big.java", 1}, {"Ok.java", 3}} {
				ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: c.file})
				if err != nil {
					t.Fatal(err)
				}
				if len(ns) != c.want {
					t.Errorf("%s: %d nodes, want %d", c.file, len(ns), c.want)
				}
			}
		})
	}
}

// TestSiblingIndex: the previous siblings siblingIndex answers from one
// pass over each parent's children are tree-sitter's own, for every node
// of a Java and a TypeScript tree with comments, modifiers and anonymous
// tokens between the declarations.
func TestSiblingIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		ts   bool
	}{
		{"java", "package p;\n/** A. */\n@Deprecated public class A {\n  /** f. */ int f, g = 1;\n  // x\n  /** m. */ void m() { int a = 1; }\n  enum E { X, /** Y. */ Y; /** k. */ int k() { return 0; } }\n}\n", false},
		{"ts", "/** a. */\nexport function a() {}\n// c\n/** B. */ class B { /** m. */ m(): void {} x = 1; }\nnamespace N { /** f. */ export const f = 1, g = 2; }\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root *sitter.Node
			if tc.ts {
				p := sitter.NewParser()
				defer p.Close()
				if err := p.SetLanguage(sitter.NewLanguage(tsts.LanguageTypescript())); err != nil {
					t.Fatal(err)
				}
				tree := p.Parse([]byte(tc.src), nil)
				defer tree.Close()
				root = tree.RootNode()
			} else {
				p := newJavaParser()
				defer p.Close()
				tree := p.Parse([]byte(tc.src), nil)
				defer tree.Close()
				root = tree.RootNode()
			}
			var s sitter.Siblings
			checked := 0
			var visit func(n *sitter.Node)
			visit = func(n *sitter.Node) {
				s.Index(n)
				for _, c := range sitter.AllChildren(n) {
					if got, want := s.PrevNamedOf(c), c.PrevNamedSibling(); !sameNode(got, want) {
						t.Errorf("%s at line %d: previous named sibling %v, want %v", c.Kind(), sitter.Line(c), got, want)
					}
					if got, want := s.PrevOf(c), c.PrevSibling(); !sameNode(got, want) {
						t.Errorf("%s at line %d: previous sibling %v, want %v", c.Kind(), sitter.Line(c), got, want)
					}
					checked++
					visit(c)
				}
			}
			visit(root)
			if checked < 50 {
				t.Errorf("checked %d nodes", checked)
			}
		})
	}
}

func sameNode(a, b *sitter.Node) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Id() == b.Id()
}

// TestJavaWideClass: a class of 100,000 methods, each calling itself
// (3.4 MB, under the size limit), is indexed with every method and call
// within the hang guard. Looking up each called name scanned all the
// class's methods, and each member's doc comment climbed from the first
// member: the run took 40–73 s on a loaded 2-core machine, about 7 s now
// (BENCHMARKS.md).
func TestJavaWideClass(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a 3.4 MB file")
	}
	dir, rel := corpusFile(t, "java-wide-100000")
	st := newMemStore()
	type result struct {
		sum Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := Run(t.Context(), st, Options{Root: dir})
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.sum.Errors)+len(r.sum.Notes) != 0 {
			t.Errorf("diagnostics %+v %+v", r.sum.Errors, r.sum.Notes)
		}
	case <-time.After(javaHangGuard):
		t.Fatalf("indexing %s took over %v", rel, javaHangGuard)
	}
	got := dump(t, st)
	for _, want := range []string{"node java:Wide.m0 member/method ", "node java:Wide.m99999 member/method ",
		"edge calls java:Wide.m0 -> java:Wide.m0", "edge calls java:Wide.m99999 -> java:Wide.m99999"} {
		if !strings.Contains(got, want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	if n := strings.Count(got, "edge calls java:Wide.m"); n != 100_000 {
		t.Errorf("%d calls, want 100,000", n)
	}
}

// TestBudgetMessagesNameOptions: what a budget reports names the limit
// by its Options field, in Diagnostic.Limit and in the message, and no
// command-line flag: the library's callers (relay index, relay serve)
// name their own settings. The messages used to give relay index's
// flags.
func TestBudgetMessagesNameOptions(t *testing.T) {
	dir := t.TempDir()
	for rel, src := range map[string]string{
		"big.py":    strings.Repeat("x = 1\n", 400),
		"deep.py":   "x = " + strings.Repeat("(", 60) + "1" + strings.Repeat(")", 60) + "\n",
		"Big.java":  "class Big {" + strings.Repeat(" int m() { return 1; }", 100) + "}\n",
		"small.txt": "",
	} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := Run(t.Context(), openStore(t), Options{Root: dir, MaxFileBytes: 2000, MaxDepth: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Diagnostic{}
	for _, d := range append(sum.Notes, sum.Errors...) {
		got[d.Pos] = d
	}
	for _, w := range []struct{ pos, limit string }{{"big.py", "MaxFileBytes"}, {"Big.java", "MaxFileBytes"}, {"deep.py", "MaxDepth"}} {
		d := got[w.pos]
		if d.Limit != w.limit || !strings.Contains(d.Msg, "Options."+w.limit) || strings.Contains(d.Msg, "--") {
			t.Errorf("%s: %+v, want Limit %s named in the message as Options.%[2]s, no flag", w.pos, d, w.limit)
		}
	}
}
