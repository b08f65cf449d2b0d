//go:build cgo

package typescript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestIncremental edits, deletes and adds TypeScript files and changes
// tsconfig.json, and checks after each step that the incremental graph
// equals a fresh full index of the same tree, that the dependents were
// re-resolved and that no more files than needed were re-extracted.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	remove := func(rel string) {
		t.Helper()
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	const lang = "TypeScript/JavaScript"
	steps := []struct {
		name      string
		change    func()
		extracted int      // files (re)extracted, -1: not checked
		want      []string // lines the dump must hold
		notWant   []string
	}{
		{
			name: "edit a body only",
			change: func() {
				write("src/lib/log.ts", "export function log(msg: string): void { decorate(msg); }\nexport function decorate(target: any) {}\nexport const trace = (m: string) => log(m);\n")
			},
			extracted: 1,
			want:      []string{"edge calls ts:src/lib/log.log -> ts:src/lib/log.decorate @src/lib/log.ts:1"},
		},
		{
			name: "rename a base class method",
			change: func() {
				write("src/models/base.ts", strings.Replace(indextest.ReadFile(t, root, "src/models/base.ts"), "describe()", "explain()", 1))
			},
			extracted: 3, // base.ts, item.ts (super.describe) and orders.ts (through item.ts's Item)
			want:      []string{"node ts:src/models/base.Base.explain "},
			notWant:   []string{"-> ts:src/models/base.Base.describe"},
		},
		{
			name: "rename a re-exported function",
			change: func() {
				write("packages/money/src/format.ts", "export function fmt(n: number): string { return String(n); }\n")
			},
			extracted: -1,
			notWant:   []string{"-> ts:packages/money/src/format.format"},
		},
		{
			name: "import a file that does not exist yet",
			change: func() {
				write("src/extra.ts", "import { later } from \"./later\";\nexport function useLater() { later(); }\n")
			},
			extracted: 1,
			notWant:   []string{"-> ts:src/later.later"},
		},
		{
			name:      "add the missing file",
			change:    func() { write("src/later.ts", "export function later() {}\n") },
			extracted: 2,
			want:      []string{"edge calls ts:src/extra.useLater -> ts:src/later.later @src/extra.ts:2"},
		},
		{
			name:      "add a method a by-name call may land on",
			change:    func() { write("src/cart.ts", "export class Cart {\n  price(): number { return 1; }\n}\n") },
			extracted: 2, // cart.ts and orders.ts (i.price() in Order.total)
			want:      []string{"edge calls_by_name ts:src/orders.Order.total -> ts:src/cart.Cart.price @src/orders.ts:21"},
		},
		{
			name:      "delete it",
			change:    func() { remove("src/cart.ts") },
			extracted: 1, // orders.ts
			notWant:   []string{"ts:src/cart.Cart.price"},
		},
		{
			name:      "delete an imported file",
			change:    func() { remove("src/lib/log.ts") },
			extracted: -1,
			notWant:   []string{"ts:src/lib/log.log"},
		},
		{
			name: "change tsconfig paths",
			change: func() {
				write("src/util/log.ts", "export function log(msg: string): void {}\n")
				write("tsconfig.base.json", `{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/util/*"]}}}`)
			},
			extracted: -1,
			want:      []string{"edge calls ts:src/models/base.Base.constructor -> ts:src/util/log.log"},
		},
		{
			name: "change only tsconfig.json",
			change: func() {
				write("tsconfig.base.json", `{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/none/*"]}}}`)
			},
			extracted: -1,
			notWant:   []string{"edge calls ts:src/models/base.Base.constructor -> ts:src/util/log.log"},
		},
	}
	for _, s := range steps {
		s.change()
		sum := indexrun.Run(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		if s.extracted >= 0 && sum.Languages[lang].Units != s.extracted {
			t.Errorf("%s: %d files re-extracted, want %d", s.name, sum.Languages[lang].Units, s.extracted)
		}
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := indexrun.Run(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}

// TestIncrementalNamespaces re-resolves a file against a stored scope
// holding namespaces (decoded from ts.scope, parents restored): the graph
// must equal a full index, and renaming a namespace's function drops the
// calls into it from the dependent file.
func TestIncrementalNamespaces(t *testing.T) {
	root := indextest.ExtractTxtar(t, "namespace")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	steps := []struct {
		name, rel, old, new string
		want, notWant       string
	}{
		{"edit a dependent's body", "src/api.ts", "return 1;", "return 2;",
			"edge calls ts:src/api.api.g -> ts:src/geo.Geo.area @src/api.ts:8", ""},
		{"rename a namespace function", "src/geo.ts", "export function area(", "export function surface(",
			"node ts:src/geo.Geo.surface ", "-> ts:src/geo.Geo.area"},
	}
	for _, s := range steps {
		p := filepath.Join(root, filepath.FromSlash(s.rel))
		if err := os.WriteFile(p, []byte(strings.Replace(indextest.ReadFile(t, root, s.rel), s.old, s.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		indexrun.Run(t, st, root, false)
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, []string{s.want}, []string{s.notWant})
	}
}

// TestGitignoreIncremental changes .gitignore files between runs: files
// it stops ignoring are indexed, files it starts ignoring leave the graph,
// as a full index of the same tree has them.
func TestGitignoreIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "gitignore")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	steps := []struct {
		name, rel, old, new string
		want, notWant       string
	}{
		{"stop ignoring dist/", ".gitignore", "dist/\n", "", "node ts:dist/bundle.main ", ""},
		{"ignore src/", ".gitignore", "/build\n", "/build\nsrc/\n", "", "ts:src/app.run"},
		{"ignore a nested file", "packages/ui/.gitignore", "out/\n", "out/\nview.ts\n", "", "ts:packages/ui/src/view.view"},
	}
	for _, s := range steps {
		p := filepath.Join(root, filepath.FromSlash(s.rel))
		if err := os.WriteFile(p, []byte(strings.Replace(indextest.ReadFile(t, root, s.rel), s.old, s.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		indexrun.Run(t, st, root, false)
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, []string{s.want}, []string{s.notWant})
	}
}

// TestIncrementalAssigned edits the assigned-method fixture: renaming a
// prototype method re-links the files calling it through new X() and
// require, and adding one back lets the calls land again; each step must
// equal a full index of the same tree.
func TestIncrementalAssigned(t *testing.T) {
	root := indextest.ExtractTxtar(t, "assigned")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	steps := []struct {
		name, rel, old, new string
		want, notWant       string
	}{
		{"edit a method body", "lib/route.js", "return req.path === this.path;", "return helper() || req.path === this.path;",
			"edge calls ts:lib/route.Route.match -> ts:lib/route.helper @lib/route.js:16", ""},
		{"rename a prototype method", "lib/route.js", "Route.prototype.dispatch = function dispatch(", "Route.prototype.send = function dispatch(",
			"node ts:lib/route.Route.send ", "-> ts:lib/route.Route.dispatch"},
		{"call the renamed method", "lib/index.js", "route.dispatch(req);", "route.send(req);",
			"edge calls ts:lib/index.proto.handle -> ts:lib/route.Route.send @lib/index.js:10", ""},
		{"drop a property of the exported function", "lib/index.js", "proto.get = proto.fetch = function fetch(", "proto.get = function fetch(",
			"edge calls ts:lib/app.app.start -> ts:lib/index.describe", "-> ts:lib/index.proto.fetch"},
	}
	for _, s := range steps {
		p := filepath.Join(root, filepath.FromSlash(s.rel))
		if err := os.WriteFile(p, []byte(strings.Replace(indextest.ReadFile(t, root, s.rel), s.old, s.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		indexrun.Run(t, st, root, false)
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, []string{s.want}, []string{s.notWant})
	}
}
