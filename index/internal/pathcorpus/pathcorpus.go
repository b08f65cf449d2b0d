// Package pathcorpus generates the pathological source files relay's
// indexer must survive: nesting a million levels deep, a 20 MB minified
// bundle, tens of thousands of nested scopes, long attribute chains, class
// hierarchies and overload sets, and a Go generic-type chain. Each kind is
// a small repository: the pathological file next to an ordinary file of
// the same language (and ok.py), so that a run can be checked for indexing
// the rest. The files are generated, never committed: the largest is 20 MB.
//
// The index tests (index/pathological_test.go) and the benchmark
// (index/internal/benchpath) use the same kinds.
package pathcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Kind is one pathological repository.
type Kind struct {
	Name string // short name, such as "py-parens-1e6"
	Lang string // "python", "typescript", "java" or "go"
	File string // the pathological file, repository-relative
	// Files returns the repository's files by relative path: File, an
	// ordinary file of the language and ok.py.
	Files func() map[string]string
}

// Okay is the ordinary Python file every kind's repository holds: a run
// that indexes it indexed more than the pathological file.
const Okay = "def ok():\n    return 1\n"

// Kinds lists every kind, in a fixed order.
func Kinds() []Kind {
	return []Kind{
		kind("py-parens-1e6", "python", "deep.py", func() string { return "x = " + nested("(", "1", ")", 1_000_000) + "\n" }),
		kind("py-attr-chain-25000", "python", "chain.py", func() string { return "x = (a" + wrap(strings.Repeat(".b", 25_000)) + ")\n" }),
		kind("py-nested-classes-1800", "python", "nested.py", func() string { return pyNestedClasses(1_800) }),
		kind("py-hierarchy-10000", "python", "hier.py", func() string { return pyHierarchy(10_000) }),
		kind("py-wide-100000", "python", "wide.py", func() string {
			return repeatf(100_000, "def g%[1]d():\n    return a.b%[1]d\n")
		}),
		kind("ts-calls-1e6", "typescript", "deep.ts", func() string { return tsCalls(1_000_000) }),
		kind("ts-calls-20000", "typescript", "calls.ts", func() string { return tsCalls(20_000) }),
		kind("ts-calls-50000", "typescript", "calls.ts", func() string { return tsCalls(50_000) }),
		kind("ts-namespaces-1300", "typescript", "ns.ts", func() string { return tsNamespaces(1_300) }),
		kind("ts-namespaces-5000", "typescript", "ns.ts", func() string { return tsNamespaces(5_000) }),
		kind("ts-namespaces-20000", "typescript", "ns.ts", func() string { return tsNamespaces(20_000) }),
		kind("ts-wide-100000", "typescript", "wide.ts", func() string {
			return "function f(x: number): number { return x; }\n" + repeatf(100_000, "function g%[1]d() { return f(%[1]d); }\n")
		}),
		kind("js-bundle-20MB", "typescript", "dist/bundle.js", func() string { return jsBundle(20 << 20) }),
		kind("js-bundle-2MB", "typescript", "dist/small.js", func() string { return jsBundle(2 << 20) }),
		kind("java-nested-classes-10000", "java", "Nested.java", func() string { return javaNested(10_000) }),
		kind("java-deep-expr-1e6", "java", "Deep.java", func() string {
			return "class Deep {\n  int x = " + nested("(", "1", ")", 1_000_000) + ";\n}\n"
		}),
		kind("java-overloads-5000", "java", "Over.java", func() string { return javaOverloads(5_000) }),
		kind("java-wide-100000", "java", "Wide.java", func() string {
			return "class Wide {\n" + repeatf(100_000, "  int m%[1]d() { return m%[1]d(); }\n") + "}\n"
		}),
		kind("go-generics-24", "go", "gen/gen.go", func() string { return goGenerics(24) }),
	}
}

func kind(name, lang, file string, src func() string) Kind {
	return Kind{Name: name, Lang: lang, File: file, Files: func() map[string]string {
		fs := map[string]string{file: src(), "ok.py": Okay}
		switch lang {
		case "typescript":
			fs["ok.ts"] = "export function ok(): number { return 1; }\n"
		case "java":
			fs["Ok.java"] = "class Ok { int ok() { return 1; } }\n"
		case "go":
			fs["go.mod"] = "module example.com/gen\n\ngo 1.22\n"
			fs["ok.go"] = "package gen\n\nfunc Ok() int { return 1 }\n"
		}
		return fs
	}}
}

// Write writes k's repository beneath dir (created).
func (k Kind) Write(dir string) error {
	for rel, src := range k.Files() {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", k.Name, err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", k.Name, err)
		}
	}
	return nil
}

// nested is open×n inner close×n, with a line break every 100 bytes or so
// (a deep file, not a minified one: the nesting is what it tests).
func nested(open, inner, close string, n int) string {
	return wrap(strings.Repeat(open, n)) + inner + wrap(strings.Repeat(close, n))
}

// wrap breaks s with a newline every 100 bytes.
func wrap(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/100 + 1)
	for len(s) > 100 {
		b.WriteString(s[:100])
		b.WriteByte('\n')
		s = s[100:]
	}
	b.WriteString(s)
	return b.String()
}

// repeatf is format applied to 0 … n-1, concatenated: one top-level
// declaration per line, so that every node's tree-sitter parent lookup
// scans the root's n children.
func repeatf(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// pyNestedClasses nests n classes, one space of indentation per level.
// The file grows with n²: 20,000 levels would be 200 MB, over the size
// limit; from about 2,000 levels its lines are long enough for it to be
// taken as minified. 1,800 levels stay under both, but tree-sitter's
// Python scanner keeps about 256 indentation levels: deeper lines are
// syntax errors, not nested classes.
func pyNestedClasses(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sclass C%d:\n", strings.Repeat(" ", i), i)
	}
	fmt.Fprintf(&b, "%spass\n", strings.Repeat(" ", n))
	return b.String()
}

// pyHierarchy is a chain of n classes, each deriving from the one before
// and calling a method of the first through self.
func pyHierarchy(n int) string {
	var b strings.Builder
	b.WriteString("class C0:\n    def m0(self):\n        return 0\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "class C%d(C%d):\n    def m%d(self):\n        return self.m0()\n", i, i-1, i)
	}
	return b.String()
}

// tsCalls is f(f(f(…))) n deep in a function body (where the extractor
// types callbacks by their argument lists).
func tsCalls(n int) string {
	return "function f(x: number): number { return x; }\nexport function g() {\n  return " + nested("f(", "0", ")", n) + ";\n}\n"
}

func tsNamespaces(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "namespace N%d {\n", i)
	}
	b.WriteString("export function f() { return 1; }\n")
	b.WriteString(strings.Repeat("}\n", n))
	return b.String()
}

// jsBundle is a minified bundle of about size bytes: functions calling
// each other on lines of about 1 MB.
func jsBundle(size int) string {
	var b strings.Builder
	b.Grow(size + 256)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "function a%d(b,c){return b+c*a%d(b,c-1)}var v%d=a%d(1,2);", i, max(i-1, 0), i, i)
		if i%20000 == 19999 {
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func javaNested(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "class C%d {\n", i)
	}
	b.WriteString("int f() { return 1; }\n")
	b.WriteString(strings.Repeat("}\n", n))
	return b.String()
}

// javaOverloads is one class with n overloads m(Ti), each called once.
func javaOverloads(n int) string {
	var b strings.Builder
	b.WriteString("class Over {\n")
	for i := range n {
		fmt.Fprintf(&b, "  void m(T%d a) {}\n", i)
	}
	b.WriteString("  void calls() {\n")
	for i := range n {
		fmt.Fprintf(&b, "    m(new T%d());\n", i)
	}
	b.WriteString("  }\n}\n")
	for i := range n {
		fmt.Fprintf(&b, "class T%d {}\n", i)
	}
	return b.String()
}

// goGenerics is a chain of n generic types, each instantiating the one
// before with itself: the type a use expands to doubles per level.
func goGenerics(n int) string {
	var b strings.Builder
	b.WriteString("package gen\n\ntype T0[P any] struct{ v P }\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "type T%d[P any] struct{ v T%d[T%d[P]] }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "\nvar X T%d[int]\n", n)
	return b.String()
}
