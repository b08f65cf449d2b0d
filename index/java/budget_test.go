//go:build cgo

package java

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/pathcorpus"
	"github.com/relayhq/relay/index/internal/sitter"
)

// hangGuard bounds the budget tests (budget_test.go,
// budgetrun_test.go): a hang guard, far above what they take.
const hangGuard = 60 * time.Second

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

// TestParseCancelled: the Java frontend parses under the run's
// context, so a cancelled run (Ctrl-C, a timeout's SIGTERM) stops the
// parse of a large file at once: nothing is extracted and nothing is
// reported about the file. The parse used to run to its end whatever the
// context said.
func TestParseCancelled(t *testing.T) {
	dir, rel := corpusFile(t, "java-wide-100000")
	read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))) }
	var said []frontend.Diagnostic
	j := &frontend.Job{Read: read, Budget: frontend.NewBudgets(0, 0, 0),
		Note: func(d frontend.Diagnostic) { said = append(said, d) }, Diag: func(d frontend.Diagnostic) { said = append(said, d) }}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ps := newParser()
	defer ps.Close()
	got := make(chan *sourceFile, 1)
	go func() { got <- (&indexer{}).parseFile(ctx, j, ps, rel, nil, true) }()
	select {
	case f := <-got:
		if f != nil {
			t.Errorf("a cancelled run extracted %s: %d nodes", rel, len(f.res.Nodes))
		}
		if len(said) != 0 {
			t.Errorf("a cancelled run reported %+v", said)
		}
	case <-time.After(hangGuard):
		t.Fatalf("the parse of %s went on %v after the run was cancelled", rel, hangGuard)
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
				p := newParser()
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
