//go:build cgo

package index_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// cleanExport indexes root into a fresh embedded store (the store relay
// index writes) with workers in parallel and returns what relay graph
// export --format jsonl writes, followed by the stored file records (hash,
// language, module, errors), one JSON object a line.
func cleanExport(t *testing.T, root string, workers int) string {
	t.Helper()
	ctx := t.Context()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "store"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(ctx, st, index.Options{Root: root, Workers: workers}); err != nil && !errors.Is(err, index.ErrNoSource) {
		t.Fatalf("index %s: %v", root, err)
	}
	var b bytes.Buffer
	if _, err := graphdb.ExportJSONL(ctx, st, graphdb.ExportFilter{}, &b); err != nil {
		t.Fatal(err)
	}
	files, err := st.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&b)
	for _, f := range files {
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// checkDeterministic indexes root runs times from scratch and reports the
// first export that differs from the first one's.
func checkDeterministic(t *testing.T, root string, runs int) {
	t.Helper()
	prev := runtime.GOMAXPROCS(max(8, runtime.GOMAXPROCS(0)))
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	first := cleanExport(t, root, 8)
	for i := 1; i < runs; i++ {
		if got := cleanExport(t, root, 8); got != first {
			t.Fatalf("index %d of the same tree differs from the first (-first +index %d):\n%s", i+1, i+1, lineDiff(first, got))
		}
	}
}

// lineDiff is cmp.Diff of two exports' lines, at most 60 lines of it.
func lineDiff(a, b string) string {
	d := strings.Split(cmp.Diff(strings.Split(a, "\n"), strings.Split(b, "\n")), "\n")
	if len(d) > 60 {
		d = append(d[:60], fmt.Sprintf("… %d more lines", len(d)-60))
	}
	return strings.Join(d, "\n")
}

// javaDepsRepo writes a Java repository whose files' dependencies
// (java.deps) used to depend on which of them resolved a shared type's
// supertypes first: every User file calls a method that ZOuter.T inherits
// from U, and T's supertype U is looked up among the members of ZOuter's
// supertypes first (so through ZBase.java). The Z files sort last, so
// that a User file does that lookup first.
func javaDepsRepo(t *testing.T, users int) string {
	root := t.TempDir()
	files := map[string]string{
		"p/ZBase.java":  "package p;\npublic class ZBase { public void b() {} }\n",
		"p/ZOuter.java": "package p;\npublic class ZOuter extends ZBase {\n  public static class T extends U {}\n}\n",
		"p/U.java":      "package p;\npublic class U { public void m() {} }\n",
	}
	for i := range users {
		var b strings.Builder
		fmt.Fprintf(&b, "package p;\nclass User%d {\n", i)
		for k := range 40 { // work before the shared lookup, so that the files race to it
			fmt.Fprintf(&b, "  int v%d(int a) { return a + %d; }\n  int w%d() { return v%d(%d) + v%d(v%d(1)); }\n", k, k, k, k, k, k, k)
		}
		b.WriteString("  void f(ZOuter.T t) { t.m(); }\n}\n")
		files[fmt.Sprintf("p/User%d.java", i)] = b.String()
	}
	for rel, s := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestDeterministicExport: two clean indexes of one tree, with parallel
// workers, export byte-identical graphs and file records, in every
// language: a fixture each for Go, Python, TypeScript/JavaScript and
// Java, and a Java repository where the recorded dependencies depended
// on goroutine scheduling.
func TestDeterministicExport(t *testing.T) {
	for _, tt := range []struct {
		name string
		root func(t *testing.T) string
		runs int
	}{
		{"go", func(t *testing.T) string { return testutil.WriteTxtar(t, "golang/testdata/calls.txtar") }, 2},
		{"python", func(t *testing.T) string { return testutil.WriteTxtar(t, "python/testdata/types.txtar") }, 3},
		{"typescript", func(t *testing.T) string { return testutil.WriteTxtar(t, "typescript/testdata/mixed.txtar") }, 3},
		{"java", func(t *testing.T) string { return testutil.WriteTxtar(t, "java/testdata/mixed.txtar") }, 3},
		{"java_deps", func(t *testing.T) string { return javaDepsRepo(t, 48) }, 4},
		{"rust", func(t *testing.T) string { return testutil.WriteTxtar(t, "rust/testdata/traits.txtar") }, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkDeterministic(t, tt.root(t), tt.runs)
		})
	}
}

// TestDeterministicRealIssues indexes the base tree of each repository of
// the real-issue sets (the first instance of each bundle) twice and
// requires byte-identical exports. RELAY_REALISSUES names the sets'
// folders (instances.jsonl and git bundles; several joined by the path
// list separator), as for eval's TestRealIssues; checkouts are kept under
// RELAY_REALISSUES_CACHE (default: a folder in the system temp dir):
//
//	RELAY_REALISSUES=../shared/realissues:../shared/realissues-systems go test ./index -run TestDeterministicRealIssues -v
func TestDeterministicRealIssues(t *testing.T) {
	sets := filepath.SplitList(os.Getenv("RELAY_REALISSUES"))
	if len(sets) == 0 {
		t.Skip("set RELAY_REALISSUES=DIR[:DIR…] (instances.jsonl and bundles) to check that indexing each real-issue repository is deterministic")
	}
	cache := os.Getenv("RELAY_REALISSUES_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "relay-realissues")
	}
	for _, set := range sets {
		f, err := os.Open(filepath.Join(set, "instances.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		ris, err := eval.LoadRealIssues(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var bundles []string
		for _, ri := range ris {
			if slices.Contains(bundles, ri.Bundle) {
				continue
			}
			bundles = append(bundles, ri.Bundle)
			t.Run(ri.ID, func(t *testing.T) {
				root, err := eval.CheckoutRealIssue(t.Context(), set, cache, ri)
				if err != nil {
					t.Fatal(err)
				}
				checkDeterministic(t, root, 2)
			})
		}
	}
}
