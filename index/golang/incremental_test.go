package golang_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

func removeFile(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// TestIncremental edits a repository after a first run and checks that the
// incremental run leaves the store exactly as a fresh full run over the
// edited tree would, reloading only the packages it should.
func TestIncremental(t *testing.T) {
	tests := []struct {
		name         string
		repo         string
		edit         func(t *testing.T, root string)
		wantPackages int // packages re-extracted by the incremental run
		wantDeleted  int
		mustContain  string // a line the final dump must hold
		mustLack     string // a line the final dump must not hold
	}{
		{
			name: "edit body adds a call",
			repo: "calls",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "a/a.go", strings.Replace(indextest.ReadFile(t, root, "a/a.go"),
					`return "hello " + name`, `c := Counter{}; c.Inc(); return "hello " + name`, 1))
			},
			wantPackages: 1,
			mustContain:  "edge calls go:example.com/calls/a.Hello -> go:example.com/calls/a.Counter.Inc @a/a.go:5",
		},
		{
			name: "add a file",
			repo: "calls",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "a/extra.go", "package a\n\n// Extra is new.\nfunc Extra() string { return Hello(\"e\") }\n")
			},
			wantPackages: 2, // a's API gained Extra: its importer b is checked again

			mustContain: "edge calls go:example.com/calls/a.Extra -> go:example.com/calls/a.Hello @a/extra.go:4",
		},
		{
			name: "delete a file",
			repo: "tests",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "p/zz_generated.go")
			},
			wantPackages: 2, // p (test variant) and p_test live in the directory
			wantDeleted:  1,
			mustLack:     "go:example.com/tests/p.Gen",
		},
		{
			name: "testdata package gains a call",
			repo: "testdatapkg",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "lib/testdata/good/main.go", strings.Replace(indextest.ReadFile(t, root, "lib/testdata/good/main.go"),
					"println(run())", "println(run(), lib.Helper())", 1))
			},
			wantPackages: 1,
			mustContain:  "edge calls go:example.com/td/lib/testdata/good.main -> go:example.com/td/lib.Helper @lib/testdata/good/main.go:16",
		},
		{
			name: "testdata package stops compiling: indexed from syntax",
			repo: "testdatapkg",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "lib/testdata/good/extra.go", "package main\n\nfunc run() int { return 3 }\n")
			},
			wantPackages: 0,
			mustContain:  "node go:lib/testdata/good/main.go:run function/",
			mustLack:     "go:pkg:example.com/td/lib/testdata/good",
		},
		{
			name: "broken testdata directory is fixed: indexed as a package",
			repo: "testdatapkg",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "lib/testdata/broken/a.go")
			},
			wantPackages: 1,
			wantDeleted:  1,
			mustContain:  "edge calls go:example.com/td/lib/testdata/broken.main -> go:example.com/td/lib/testdata/broken.helper @lib/testdata/broken/b.go:3",
		},
		{
			name: "rename a file",
			repo: "calls",
			edit: func(t *testing.T, root string) {
				data := indextest.ReadFile(t, root, "b/b.go")
				removeFile(t, root, "b/b.go")
				testutil.WriteFile(t, root, "b/run.go", data)
			},
			wantPackages: 1,
			wantDeleted:  1,
			mustContain:  "node go:example.com/calls/b.Run function/ name=Run qname=example.com/calls/b.Run loc=b/run.go:Run",
		},
		{
			name: "move a function between files",
			repo: "broken",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "bad/bad.go", "package bad\n\nfunc Good() int { return 1 }\n")
				testutil.WriteFile(t, root, "bad/dup.go", "package bad\n\nfunc Dup() {}\n\nfunc Bad() string { return \"\" }\n")
			},
			wantPackages: 2, // bad's API lost T: its importer is checked again

			mustContain: "node go:example.com/broken/bad.Bad function/ name=Bad qname=example.com/broken/bad.Bad loc=bad/dup.go:Bad",
			mustLack:    "errors=",
		},
		{
			name: "method removed: implements recomputed",
			repo: "iface",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "other/other.go", strings.Replace(indextest.ReadFile(t, root, "other/other.go"),
					`func (c Circle) Name() string  { return "circle" }`, ``, 1))
			},
			wantPackages: 1,
			mustContain:  "edge implements go:example.com/iface/other.Circle -> go:example.com/iface/shape.Shape",
			mustLack:     "edge implements go:example.com/iface/other.Circle -> go:example.com/iface/shape.Named",
		},
		{
			name: "embedded type gains a method: the embedding package is reloaded",
			repo: "iface",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "shape/shape.go", strings.Replace(indextest.ReadFile(t, root, "shape/shape.go"),
					"type Any interface{}", "type Any interface{}\n\n// Volumer has a volume.\ntype Volumer interface{ Volume() float64 }\n\nfunc (s *Square) Volume() float64 { return 0 }", 1))
			},
			wantPackages: 2,
			mustContain:  "edge implements go:example.com/iface/other.Labeled -> go:example.com/iface/shape.Volumer",
		},
		{
			name: "embedded type's receiver turns pointer: the embedding package is reloaded",
			repo: "ptrpromoted",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "c/c.go", strings.Replace(indextest.ReadFile(t, root, "c/c.go"),
					"func (c Counter) Get()", "func (c *Counter) Get()", 1))
			},
			wantPackages: 2,
			mustContain:  `sig="type ByValue struct" doc="ByValue embeds c.Counter." flags=exported lang=go go.pointer_methods="Get,Inc"`,
		},
		{
			name: "embedded package edited without method-set change: embedders stay",
			repo: "iface",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "shape/shape.go", strings.Replace(indextest.ReadFile(t, root, "shape/shape.go"),
					"return s.Side * s.Side", "return s.Side * s.Side * 1", 1))
			},
			wantPackages: 1,
			mustContain:  "edge implements go:example.com/iface/other.Labeled -> go:example.com/iface/shape.Named",
		},
		{
			name: "delete a package directory",
			repo: "multimodule",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "tools/cmd")
			},
			wantPackages: 0,
			wantDeleted:  1,
			mustLack:     "example.com/tools",
		},
		{
			name: "edit a testdata file",
			repo: "tests",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "p/testdata/other.go", "package main\n\nfunc main() {}\n\nfunc More() {}\n")
			},
			wantPackages: 0,
			mustContain:  "node go:p/testdata/other.go:More function/",
		},
		{
			name: "edit the external test package only",
			repo: "tests",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "p/x_test.go", strings.Replace(indextest.ReadFile(t, root, "p/x_test.go"), "p.Add(2, 2)", "p.Gen()", 1))
			},
			wantPackages: 2,
			mustContain:  "edge calls go:example.com/tests/p_test.TestExternal -> go:example.com/tests/p.Gen @p/x_test.go:10",
		},
		{
			name: "var initialiser calls another function",
			repo: "varinit",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "app/second.go", strings.Replace(indextest.ReadFile(t, root, "app/second.go"),
					`lib.New("second")`, `lib.Default()`, 1))
			},
			wantPackages: 1,
			mustContain:  "edge calls go:example.com/varinit/app.init#app/second.go#vars -> go:example.com/varinit/lib.Default @app/second.go:5",
			mustLack:     "edge calls go:example.com/varinit/app.init#app/second.go#vars -> go:example.com/varinit/lib.New",
		},
		{
			name: "var initialiser loses its call: the synthetic caller goes",
			repo: "varinit",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "app/second.go", strings.Replace(indextest.ReadFile(t, root, "app/second.go"),
					`lib.New("second")`, `&lib.Client{}`, 1))
			},
			wantPackages: 1,
			mustLack:     "go:example.com/varinit/app.init#app/second.go#vars",
		},
		{
			name: "delete a file with var initialisers",
			repo: "varinit",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "app/second.go")
			},
			wantPackages: 1,
			wantDeleted:  1,
			mustLack:     "app/second.go",
		},
		{
			name: "rename a file with var initialisers",
			repo: "varinit",
			edit: func(t *testing.T, root string) {
				data := indextest.ReadFile(t, root, "app/second.go")
				removeFile(t, root, "app/second.go")
				testutil.WriteFile(t, root, "app/third.go", data)
			},
			wantPackages: 1,
			wantDeleted:  1,
			mustContain:  "edge calls go:example.com/varinit/app.init#app/third.go#vars -> go:example.com/varinit/lib.New @app/third.go:5",
			mustLack:     "app/second.go",
		},
		{
			name: "last referrer stops naming an external interface: its nodes go",
			repo: "extiface",
			edit: func(t *testing.T, root string) {
				h := strings.Replace(indextest.ReadFile(t, root, "h/h.go"), "\t\"encoding\"\n", "", 1)
				testutil.WriteFile(t, root, "h/h.go", strings.Replace(h, "encoding.TextMarshaler", "interface{ MarshalText() ([]byte, error) }", 1))
			},
			wantPackages: 1,
			mustContain:  "edge calls go:example.com/ext/h.Say -> go:io.Writer.Write @h/h.go:15",
			mustLack:     "encoding.TextMarshaler",
		},
		{
			name: "last referrer deleted: its external interfaces go, shared ones stay",
			repo: "extiface",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "h")
			},
			wantDeleted: 1,
			mustContain: "node go:io.Writer.Write member/method",
			mustLack:    "encoding.TextMarshaler",
		},
		{
			name: "type gains a method: implements an interface another package references",
			repo: "extiface",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "h/h.go", indextest.ReadFile(t, root, "h/h.go")+"\nfunc (n Name) String() string { return string(n) }\n")
			},
			wantPackages: 1,
			mustContain:  "edge implements go:example.com/ext/h.Name -> go:fmt.Stringer",
		},
		{
			name: "new package in a workspace module",
			repo: "gowork",
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "lib/sub/sub.go", "package sub\n\nimport \"example.com/lib\"\n\nfunc Sub() { lib.Do() }\n")
			},
			wantPackages: 1,
			mustContain:  "edge calls go:example.com/lib/sub.Sub -> go:example.com/lib.Do @lib/sub/sub.go:5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := indextest.ExtractTxtar(t, tt.repo)
			st := indextest.OpenStore()
			indexrun.Run(t, st, root, false)
			tt.edit(t, root)
			sum := indexrun.Run(t, st, root, false)
			if sum.Unchanged {
				t.Fatal("second run reported no change after an edit")
			}
			if sum.Languages["Go"].Units != tt.wantPackages {
				t.Errorf("incremental run extracted %d packages, want %d", sum.Languages["Go"].Units, tt.wantPackages)
			}
			if sum.Deleted != tt.wantDeleted {
				t.Errorf("incremental run deleted %d files, want %d", sum.Deleted, tt.wantDeleted)
			}
			got := indextest.Dump(t, st)
			fresh := indextest.OpenStore()
			indexrun.Run(t, fresh, root, false)
			if diff := cmp.Diff(indextest.Dump(t, fresh), got); diff != "" {
				t.Errorf("incremental graph differs from a fresh index (-fresh +incremental):\n%s", diff)
			}
			if tt.mustContain != "" && !strings.Contains(got, tt.mustContain) {
				t.Errorf("graph lacks %q", tt.mustContain)
			}
			if tt.mustLack != "" && strings.Contains(got, tt.mustLack) {
				t.Errorf("graph still holds %q", tt.mustLack)
			}
			// A third run finds nothing to do.
			again := indexrun.Run(t, st, root, false)
			if !again.Unchanged || again.Languages["Go"].Units != 0 {
				t.Errorf("run after the incremental one: unchanged=%v packages=%d, want true 0", again.Unchanged, again.Languages["Go"].Units)
			}
		})
	}
}

// TestNoChange checks that a run over an unchanged tree loads and writes
// nothing.
func TestNoChange(t *testing.T) {
	t.Parallel()
	root := indextest.ExtractTxtar(t, "calls")
	st := indextest.OpenStore()
	first := indexrun.Run(t, st, root, false)
	before := indextest.Dump(t, st)
	sum := indexrun.Run(t, st, root, false)
	if !sum.Unchanged || sum.Languages["Go"].Units != 0 || sum.Changed != 0 || sum.Deleted != 0 {
		t.Errorf("second run: %+v, want unchanged with nothing loaded", sum)
	}
	for _, phase := range []string{"list", "check", "write"} {
		if _, ok := sum.Phases[phase]; ok {
			t.Errorf("no-change run went through phase %q", phase)
		}
	}
	if sum.Files != first.Files || sum.Stats.TotalNodes() != first.Stats.TotalNodes() {
		t.Errorf("no-change run: files=%d nodes=%d, want %d %d", sum.Files, sum.Stats.TotalNodes(), first.Files, first.Stats.TotalNodes())
	}
	if diff := cmp.Diff(before, indextest.Dump(t, st)); diff != "" {
		t.Errorf("no-change run altered the graph (-before +after):\n%s", diff)
	}
}

// TestFullRuns checks what forces a full re-index: Options.Full, another
// index format version, a changed go.mod.
func TestFullRuns(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string, st *memstore.Store)
		full  bool
	}{
		{name: "Options.Full", full: true},
		{name: "format version differs", setup: func(t *testing.T, root string, st *memstore.Store) {
			tx, _ := st.Begin(t.Context())
			if err := tx.SetMeta(t.Context(), golang.MetaVersion, "go-0"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "go.mod changed", setup: func(t *testing.T, root string, st *memstore.Store) {
			testutil.WriteFile(t, root, "go.mod", "module example.com/calls\n\ngo 1.23\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := indextest.ExtractTxtar(t, "calls")
			st := indextest.OpenStore()
			first := indexrun.Run(t, st, root, false)
			before := indextest.Dump(t, st)
			if tt.setup != nil {
				tt.setup(t, root, st)
			}
			sum := indexrun.Run(t, st, root, tt.full)
			if sum.Unchanged || sum.Languages["Go"].Units != first.Languages["Go"].Units || sum.Changed != first.Files {
				t.Errorf("run: unchanged=%v packages=%d changed=%d, want a full run (%d packages, %d files)",
					sum.Unchanged, sum.Languages["Go"].Units, sum.Changed, first.Languages["Go"].Units, first.Files)
			}
			if diff := cmp.Diff(before, indextest.Dump(t, st)); diff != "" {
				t.Errorf("full re-index changed the graph (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDependencyOutsideRepoChanges checks that a dependency outside the
// repository (here a module replaced by a sibling directory) is checked
// again when its files change, even though the process keeps checked
// dependencies across runs.
func TestDependencyOutsideRepoChanges(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dep, root := filepath.Join(base, "dep"), filepath.Join(base, "repo")
	testutil.WriteFile(t, dep, "go.mod", "module example.com/dep\n\ngo 1.22\n")
	testutil.WriteFile(t, dep, "dep.go", "package dep\n\nfunc F() int { return 1 }\n")
	testutil.WriteFile(t, root, "go.mod", "module example.com/repo\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n")
	testutil.WriteFile(t, root, "use.go", "package repo\n\nimport \"example.com/dep\"\n\nfunc Use() int { return dep.F() }\n")
	st := indextest.OpenStore()
	if sum := indexrun.Run(t, st, root, false); len(sum.Errors) != 0 {
		t.Fatalf("first run: %v", sum.Errors)
	}
	testutil.WriteFile(t, dep, "dep.go", "package dep\n\nfunc Renamed() int { return 1 }\n")
	testutil.WriteFile(t, root, "use.go", "package repo\n\nimport \"example.com/dep\"\n\n// Use uses.\nfunc Use() int { return dep.F() }\n")
	sum := indexrun.Run(t, st, root, false)
	if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Msg, "undefined: dep.F") {
		t.Errorf("second run errors = %v, want undefined: dep.F (the changed dependency re-checked)", sum.Errors)
	}
}
