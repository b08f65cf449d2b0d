//go:build cgo

package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
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
	j := &job{tree: &tree{rf: rf}, budget: budgetsOf(Options{}),
		note: func(d Diagnostic) { said = append(said, d) }, diag: func(d Diagnostic) { said = append(said, d) }}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ps := newJavaParser()
	defer ps.Close()
	got := make(chan *javaFile, 1)
	go func() { got <- (&javaFrontend{}).parseFile(ctx, j, ps, rel, nil, true) }()
	select {
	case f := <-got:
		if f != nil {
			t.Errorf("a cancelled run extracted %s: %d nodes", rel, len(f.res.nodes))
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
			var s siblingIndex
			checked := 0
			var visit func(n *sitter.Node)
			visit = func(n *sitter.Node) {
				s.index(n)
				for _, c := range allChildren(n) {
					if got, want := s.prevNamedOf(c), c.PrevNamedSibling(); !sameNode(got, want) {
						t.Errorf("%s at line %d: previous named sibling %v, want %v", c.Kind(), line(c), got, want)
					}
					if got, want := s.prevOf(c), c.PrevSibling(); !sameNode(got, want) {
						t.Errorf("%s at line %d: previous sibling %v, want %v", c.Kind(), line(c), got, want)
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
