//go:build cgo

package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// byNameLang is one language's repository for TestByNameIncremental: a
// caller file whose one call can be matched by name only (x.frob() on a
// value of unknown type) and files k0…k9, each holding one class Ki with
// one method.
type byNameLang struct {
	title     string // Summary.Languages key; "" for Python
	callerRel string
	caller    string
	from      string                            // the calling function's node id
	file      func(i int) string                // the path of ki
	class     func(i int, method string) string // ki's source with Ki.method
	id        func(i int, method string) string // the node id of Ki.method
	more      func(write func(rel, data string)) []byNameStep
}

// byNameStep is one change of TestByNameIncremental.
type byNameStep struct {
	name      string
	change    func()
	extracted int // files (re)extracted
	want      []string
	notWant   []string
}

var byNameLangs = []byNameLang{
	{
		callerRel: "a.py",
		caller:    "def use(x):\n    return x.frob()\n",
		from:      "py:a.use",
		file:      func(i int) string { return fmt.Sprintf("k%d.py", i) },
		class: func(i int, m string) string {
			return fmt.Sprintf("class K%d:\n    def %s(self):\n        return %d\n", i, m, i)
		},
		id: func(i int, m string) string { return fmt.Sprintf("py:k%d.K%d.%s", i, i, m) },
	},
	{
		title:     "TypeScript/JavaScript",
		callerRel: "src/a.ts",
		caller:    "export function use(x) {\n  return x.frob();\n}\n",
		from:      "ts:src/a.use",
		file:      func(i int) string { return fmt.Sprintf("src/k%d.ts", i) },
		class: func(i int, m string) string {
			return fmt.Sprintf("export class K%d {\n  %s(): number { return %d; }\n}\n", i, m, i)
		},
		id: func(i int, m string) string { return fmt.Sprintf("ts:src/k%d.K%d.%s", i, i, m) },
	},
	{
		title:     "Java",
		callerRel: "src/p/A.java",
		caller:    "package p;\n\nclass A {\n    void use() {\n        unknown.frob();\n    }\n}\n",
		from:      "java:p.A.use",
		file:      func(i int) string { return fmt.Sprintf("src/q/K%d.java", i) },
		class: func(i int, m string) string {
			return fmt.Sprintf("package q;\n\npublic class K%d {\n    public int %s() {\n        return %d;\n    }\n}\n", i, m, i)
		},
		id: func(i int, m string) string { return fmt.Sprintf("java:q.K%d.%s", i, m) },
		// unknown.frob() takes no argument: methods named frob that take one
		// are no candidates.
		more: func(write func(rel, data string)) []byNameStep {
			const k = "src/q/K5.java"
			unary := "package q;\n\npublic class K5 {\n    public int frob(int n) {\n        return n;\n    }\n}\n"
			return []byNameStep{
				{
					name: "a candidate takes an argument now", change: func() { write(k, unary) }, extracted: 2,
					want: []string{"edge calls_by_name java:p.A.use -> java:q.K4.frob @"}, notWant: []string{"-> java:q.K5.frob @"},
				},
				{
					name:      "methods of that name taking one argument: the caller stays",
					change:    func() { write("src/q/K8.java", strings.ReplaceAll(unary, "K5", "K8")) },
					extracted: 1, want: []string{"edge calls_by_name java:p.A.use -> java:q.K4.frob @"},
				},
			}
		},
	},
}

// TestByNameIncremental: an unchanged file's calls_by_name edges follow
// the methods of that name elsewhere — one added, renamed, renamed back,
// candidates added past the limit of 8 (the call then has none) and
// removed below it again, a candidate's file deleted — and after every
// step the incremental graph equals a full index. The counts of files
// re-extracted show that only the caller whose candidates changed is
// re-extracted besides the edited files: not when the name stays over the
// limit, nor when a candidate's body changes.
func TestByNameIncremental(t *testing.T) {
	for _, l := range byNameLangs {
		name := l.title
		if name == "" {
			name = "Python"
		}
		t.Run(strings.Split(name, "/")[0], func(t *testing.T) {
			t.Parallel()
			testByNameIncremental(t, l)
		})
	}
}

func testByNameIncremental(t *testing.T, l byNameLang) {
	root := t.TempDir()
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	remove := func(i int) {
		t.Helper()
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(l.file(i)))); err != nil {
			t.Fatal(err)
		}
	}
	cand := func(i int) { write(l.file(i), l.class(i, "frob")) }
	edge := func(i int) string {
		return "edge calls_by_name " + l.from + " -> " + l.id(i, "frob") + " @" + l.callerRel + ":"
	}
	edges := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, edge(i))
		}
		return out
	}
	anyEdge := "edge calls_by_name " + l.from + " -> "
	write(l.callerRel, l.caller)
	write(l.file(0), l.class(0, "other"))
	st := openStore(t)
	runIndex(t, st, root, false)
	steps := []byNameStep{
		{name: "add a method the call may land on", change: func() { cand(0) }, extracted: 2, want: edges(0, 0)},
		{name: "rename it", change: func() { write(l.file(0), l.class(0, "frobble")) }, extracted: 2, notWant: []string{anyEdge}},
		{name: "rename it back", change: func() { cand(0) }, extracted: 2, want: edges(0, 0)},
		{
			name: "seven more: eight candidates",
			change: func() {
				for i := 1; i <= 7; i++ {
					cand(i)
				}
			},
			extracted: 8, want: edges(0, 7),
		},
		{name: "a ninth: more than the limit", change: func() { cand(8) }, extracted: 2, notWant: []string{anyEdge}},
		{name: "a tenth: still more, the caller stays", change: func() { cand(9) }, extracted: 1, notWant: []string{anyEdge}},
		{name: "delete one: still more", change: func() { remove(9) }, extracted: 0, notWant: []string{anyEdge}},
		{name: "delete another: at the limit again", change: func() { remove(8) }, extracted: 1, want: edges(0, 7)},
		{name: "delete a file holding a candidate", change: func() { remove(0) }, extracted: 1, want: edges(1, 7), notWant: edges(0, 0)},
		{
			name:      "edit a candidate's body",
			change:    func() { write(l.file(1), strings.Replace(l.class(1, "frob"), "return 1", "return 11", 1)) },
			extracted: 1, want: edges(1, 7),
		},
		{
			name:      "the caller calls another name",
			change:    func() { write(l.callerRel, strings.Replace(l.caller, "frob", "other", 1)) },
			extracted: 1, notWant: []string{anyEdge},
		},
		{
			name:      "a method of that name appears",
			change:    func() { write(l.file(0), l.class(0, "other")) },
			extracted: 2, want: []string{"edge calls_by_name " + l.from + " -> " + l.id(0, "other") + " @"},
		},
	}
	if l.more != nil { // before the caller calls another name
		steps = slices.Insert(steps, len(steps)-2, l.more(write)...)
	}
	for _, s := range steps {
		s.change()
		sum := runIndex(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		n := sum.Languages["Python"].Units
		if l.title != "" {
			n = sum.Languages[l.title].Units
		}
		if n != s.extracted {
			t.Errorf("%s: %d files re-extracted, want %d", s.name, n, s.extracted)
		}
		got := matchesFullIndex(t, s.name, st, root)
		dumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := runIndex(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}
