//go:build cgo

package java_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/java"
)

// okFile is an ordinary file beside a pathological one: it must be
// indexed whatever happens to the other.
const okFile = "class Ok { void run() { new Ok().run(); } }\n"

// indexPathological writes P.java (src) and Ok.java into a fresh
// repository and indexes it within the hang guard (runGuarded).
func indexPathological(t *testing.T, src string) (index.Summary, string) {
	t.Helper()
	root := t.TempDir()
	for name, s := range map[string]string{"P.java": src, "Ok.java": okFile} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := indextest.OpenStore()
	// The size limit is off: the files of these tests are long single
	// lines, which the limit would take as minified and not parse; the
	// nesting limits are what they test.
	sum := runGuarded(t, st, index.Options{Root: root, MaxFileBytes: -1})
	got := indextest.Dump(t, st)
	if !strings.Contains(got, "edge calls java:Ok.run -> java:Ok.run") {
		t.Errorf("Ok.java beside P.java was not indexed:\n%.2000s", got)
	}
	return sum, got
}

// wantDiagnostic checks that the run reports msg at P.java:line.
func wantDiagnostic(t *testing.T, sum index.Summary, line int, msg string) {
	t.Helper()
	for _, d := range sum.Errors {
		if strings.HasPrefix(d.Pos, fmt.Sprintf("P.java:%d:", line)) && d.Msg == msg {
			return
		}
	}
	t.Errorf("no diagnostic %q at P.java:%d; got %+v", msg, line, sum.Errors)
}

// TestDeepCode: code nested far deeper than any real code (100,000
// levels of calls, parentheses, operators, method chains) is walked down
// to java.MaxCodeDepth, with a diagnostic, and the file's other calls and
// the repository's other files are indexed. The walks used to recurse
// once per level until Go's stack overflowed, which ends the process; the
// test lowers the stack limit so that the old walk overflows it at this
// depth, while the bounded walk stays far below it.
func TestDeepCode(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	const n = 100_000
	for _, tt := range []struct {
		name, expr string
	}{
		{"calls", strings.Repeat("f(", n) + "1" + strings.Repeat(")", n)},
		{"parentheses", strings.Repeat("(", n) + "1" + strings.Repeat(")", n)},
		{"operators", strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n)},
		{"chain", "this" + strings.Repeat(".f(1).d", n) + ".f(1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "class D {\n  D d;\n  int f(int x) { return x; }\n  int g() { return " + tt.expr + "; }\n  void h() { f(2); }\n}\n"
			sum, got := indexPathological(t, src)
			wantDiagnostic(t, sum, 4, java.CodeTooDeep)
			indextest.DumpHolds(t, tt.name, got, []string{"edge calls java:D.h -> java:D.f", "node java:D.g member/method "}, nil)
		})
	}
}

// TestNestedTypes: 2,000 classes nested in each other index the
// first java.MaxTypeNesting levels, with a diagnostic, and their qualified
// names (which repeat the enclosing types') take at most
// java.MaxTypeNesting times the file's size, not the square of the depth.
func TestNestedTypes(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteString("package p;\n")
	for i := range n {
		fmt.Fprintf(&b, "class C%d {\n", i)
	}
	b.WriteString("void m() { m(); }\n" + strings.Repeat("}\n", n))
	src := b.String()
	sum, got := indexPathological(t, src)
	wantDiagnostic(t, sum, 1+java.MaxTypeNesting+1, java.TypeTooDeep)
	deepest := "p"
	for i := range java.MaxTypeNesting {
		deepest += fmt.Sprintf(".C%d", i)
	}
	indextest.DumpHolds(t, "nested", got, []string{"node java:" + deepest + " type/class "}, []string{"java:" + deepest + ".C"})
	names := 0
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "node java:p.C0") {
			names += len(l)
		}
	}
	if limit := 4 * java.MaxTypeNesting * len(src); names > limit {
		t.Errorf("the nodes of %d nested classes take %d bytes, over %d (4 × %d levels × %d bytes of source)", n, names, limit, java.MaxTypeNesting, len(src))
	}
}

// TestManyOverloads: a class of 20,000 overloads that call each
// other resolves each call to its overload (choose finds the exact
// match by parameter key instead of scoring every overload for every
// call, which took minutes).
func TestManyOverloads(t *testing.T) {
	const n = 20_000
	var b strings.Builder
	b.WriteString("class O {\n")
	for i := range n {
		fmt.Fprintf(&b, "  void m(T%d p) { m(p); }\n", i)
	}
	b.WriteString("  void s(T7 a, T9 b) {}\n  void s(T9 a, T7 b) {}\n  void u() { s(new T7(), new T9()); m(new T5()); }\n}\n")
	for i := range n {
		fmt.Fprintf(&b, "class T%d {}\n", i)
	}
	_, got := indexPathological(t, b.String())
	if c := strings.Count(got, "edge calls java:O.m("); c != n {
		t.Errorf("%d calls edges from the overloads of m, want %d", c, n)
	}
	indextest.DumpHolds(t, "overloads", got, []string{
		"edge calls java:O.m(T0) -> java:O.m(T0) ", "edge calls java:O.m(T19999) -> java:O.m(T19999) ",
		"edge calls java:O.u -> java:O.s(T7,T9) ", "edge calls java:O.u -> java:O.m(T5) ",
	}, []string{"edge calls java:O.u -> java:O.s(T9,T7) ", "edge calls_by_name java:O.m("})
}

// TestCyclicSupertypes: supertypes named through each other (javac
// rejects the cycle; a repository may still hold it) used to recurse
// until the stack overflowed.
func TestCyclicSupertypes(t *testing.T) {
	src := "class A extends B {}\nclass B extends A.Inner { void f() { new B().g(); f(); } }\nclass C extends C {}\n"
	_, got := indexPathological(t, src)
	indextest.DumpHolds(t, "cyclic", got, []string{"edge calls java:B.f -> java:B.f", "edge inherits java:A -> java:B"}, nil)
}

// TestNestedAnonymous: 1,000 anonymous classes nested in each other
// resolve in linear time (they used to resolve the supertypes of every
// enclosing one again at each level, 2^depth: 26 levels took half a
// minute), and the innermost call, still within java.MaxCodeDepth, is the
// enclosing method's.
func TestNestedAnonymous(t *testing.T) {
	const n = 1000
	src := "class D {\n  int f(int x) { return x; }\n  Object g() { return " + strings.Repeat("new Object() { Object h() { return ", n) +
		"new D().f(1)" + strings.Repeat("; } }", n) + "; }\n}\n"
	_, got := indexPathological(t, src)
	indextest.DumpHolds(t, "anonymous", got, []string{"edge calls java:D.g -> java:D.f"}, nil)
}
