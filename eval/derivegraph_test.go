//go:build cgo

package eval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/udiff"
)

// deriveMixedTree is a JavaScript, TypeScript and Python checkout for
// TestDeriveGoldGraph.
var deriveMixedTree = map[string]string{
	"src/plugin.js": `export default (option, Dayjs) => {
  const proto = Dayjs.prototype
  proto.week = function () {
    return pad(this.$W)
  }
}
function pad(n) {
  return n < 10 ? '0' + n : '' + n
}
`,
	"src/calendar.ts": `export class Calendar {
  days: number = 7

  /** Start of the week. */
  start(): number {
    return 0
  }

  end(): number {
    return this.days - 1
  }
}
`,
	"lib/util.py": `def parse(s):
    # split on commas
    return s.split(",")


def render(xs):
    return ",".join(xs)
`,
	"test/plugin.test.js": "import p from '../src/plugin'\ntest('x', () => {})\n",
	"README.md":           "# demo\n",
}

// TestDeriveGoldGraph derives function-level gold for JavaScript,
// TypeScript and Python from the graph: a changed line names the function
// holding it (not its neighbour), a line inserted
// into a method names the method, a comment-only Python edit is no fix,
// tests and docs are skipped.
func TestDeriveGoldGraph(t *testing.T) {
	root := writeTree(t, deriveMixedTree)
	st := memstore.New()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	patch := `diff --git a/src/plugin.js b/src/plugin.js
--- a/src/plugin.js
+++ b/src/plugin.js
@@ -7,3 +7,3 @@ export default (option, Dayjs) => {
 function pad(n) {
-  return n < 10 ? '0' + n : '' + n
+  return n < 10 ? ` + "`0${n}`" + ` : ` + "`${n}`" + `
 }
diff --git a/src/calendar.ts b/src/calendar.ts
--- a/src/calendar.ts
+++ b/src/calendar.ts
@@ -9,3 +9,4 @@ export class Calendar {
   end(): number {
+    if (this.days === 0) return 0
     return this.days - 1
   }
diff --git a/lib/util.py b/lib/util.py
--- a/lib/util.py
+++ b/lib/util.py
@@ -1,3 +1,3 @@
 def parse(s):
-    # split on commas
+    # split on each comma
     return s.split(",")
diff --git a/test/plugin.test.js b/test/plugin.test.js
--- a/test/plugin.test.js
+++ b/test/plugin.test.js
@@ -2 +2 @@
-test('x', () => {})
+test('y', () => {})
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-# demo
+# the demo
`
	diffs, err := udiff.Parse(strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	g, err := GoldFromDiffGraph(t.Context(), root, diffs, st)
	if err != nil {
		t.Fatal(err)
	}
	want := Gold{
		Files:     []string{"src/calendar.ts", "src/plugin.js"},
		Functions: []string{"src/calendar.ts:Calendar.end", "src/plugin.js:pad"},
		Lines:     map[string][]int{"src/calendar.ts": {9}, "src/plugin.js": {8}},
		Skipped:   []string{"lib/util.py: comments or blank lines only", "test/plugin.test.js: test", "README.md: not source code"},
	}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("GoldFromDiffGraph (-want +got):\n%s", d)
	}

	// A Python code change names its function; without a graph only Go
	// counts, as before.
	py, _ := udiff.Parse(strings.NewReader("--- a/lib/util.py\n+++ b/lib/util.py\n@@ -7 +7 @@ def render(xs):\n-    return \",\".join(xs)\n+    return \", \".join(xs)\n"))
	g, err = GoldFromDiffGraph(t.Context(), root, py, st)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"lib/util.py:render"}, g.Functions); d != "" {
		t.Errorf("Python gold functions (-want +got):\n%s", d)
	}
	g, err = GoldFromDiffGraph(t.Context(), root, py, nil)
	if err != nil || len(g.Files) != 0 || len(g.Skipped) != 1 || !strings.Contains(g.Skipped[0], "not Go source") {
		t.Errorf("without a graph: %+v, %v; want lib/util.py skipped as not Go source", g, err)
	}
}

// TestDeriveGoldGraphUnindexed: a source file of a language the graph has
// nothing for (here: an empty graph) is gold with its functions unknown,
// and a diff against a file missing from the checkout is an error.
func TestDeriveGoldGraphUnindexed(t *testing.T) {
	root := writeTree(t, map[string]string{"src/A.java": "class A {\n  void f() {\n    g();\n  }\n}\n"})
	diffs, _ := udiff.Parse(strings.NewReader("--- a/src/A.java\n+++ b/src/A.java\n@@ -3 +3 @@\n-    g();\n+    h();\n"))
	g, err := GoldFromDiffGraph(t.Context(), root, diffs, memstore.New())
	if err != nil {
		t.Fatal(err)
	}
	want := Gold{Files: []string{"src/A.java"}, Functions: []string{}, Lines: map[string][]int{"src/A.java": {3}}, Skipped: []string{"src/A.java: functions unknown (the graph has nothing for this file; is its language indexed?)"}}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("unindexed language (-want +got):\n%s", d)
	}
	missing, _ := udiff.Parse(strings.NewReader("--- a/src/B.java\n+++ b/src/B.java\n@@ -1 +1 @@\n-x\n+y\n"))
	if _, err := GoldFromDiffGraph(t.Context(), root, missing, memstore.New()); err == nil || !strings.Contains(err.Error(), "not in the checkout") {
		t.Errorf("file not in the checkout: %v", err)
	}
}

// TestInnermost: a point inside nested functions goes to the innermost; an
// insertion before a function's first line is outside it.
func TestInnermost(t *testing.T) {
	outer := graphdb.Node{Loc: "a.js:outer", StartLine: 1, EndLine: 20}
	inner := graphdb.Node{Loc: "a.js:outer.inner", StartLine: 5, EndLine: 8}
	funcs := []graphdb.Node{outer, inner}
	for _, tt := range []struct {
		pt   changePoint
		want string
	}{
		{changePoint{line: 6}, "a.js:outer.inner"},
		{changePoint{line: 5}, "a.js:outer.inner"},
		{changePoint{line: 5, inserted: true}, "a.js:outer"},
		{changePoint{line: 9}, "a.js:outer"},
		{changePoint{line: 1, inserted: true}, ""},
		{changePoint{line: 21}, ""},
	} {
		got, ok := innermost(funcs, tt.pt)
		if !ok {
			got.Loc = ""
		}
		if got.Loc != tt.want {
			t.Errorf("innermost(%+v) = %q, want %q", tt.pt, got.Loc, tt.want)
		}
	}
}
