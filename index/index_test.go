package index

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
)

// extractTxtar writes the files of testdata/name.txtar (or of the archive
// at path name when it ends in .txtar) into a new temporary
// directory and returns it.
func extractTxtar(t testing.TB, name string) string {
	t.Helper()
	file := filepath.Join("testdata", name+".txtar")
	if strings.HasSuffix(name, ".txtar") {
		file = name // a path
	}
	return testutil.WriteTxtar(t, file)
}

// openStore returns an empty store. The package's tests use an in-memory
// store so that they exercise the indexer alone; index/internal/benchstd
// runs the indexer against the embedded store.
func openStore(t *testing.T) graphdb.Store {
	t.Helper()
	return newMemStore()
}

func runIndex(t *testing.T, st graphdb.Store, root string, full bool) Summary {
	t.Helper()
	sum, err := Run(t.Context(), st, Options{Root: root, Full: full})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

// matchesFullIndex returns the dump of st (just indexed incrementally) and
// reports, under step's name, where it differs from a fresh full index of
// the same tree.
func matchesFullIndex(t *testing.T, step string, st graphdb.Store, root string) string {
	t.Helper()
	got := dump(t, st)
	fresh := openStore(t)
	runIndex(t, fresh, root, true)
	if diff := cmp.Diff(dump(t, fresh), got); diff != "" {
		t.Errorf("%s: incremental graph differs from a full index (-full +incremental):\n%s", step, diff)
	}
	return got
}

// dumpHolds reports, under step's name, each of want the dump lacks and
// each of notWant it still holds; empty strings are skipped.
func dumpHolds(t *testing.T, step, got string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if w != "" && !strings.Contains(got, w) {
			t.Errorf("%s: dump lacks %q", step, w)
		}
	}
	for _, w := range notWant {
		if w != "" && strings.Contains(got, w) {
			t.Errorf("%s: dump still holds %q", step, w)
		}
	}
}

// dump renders everything the store holds for the repository as sorted
// text: file records, nodes and the outgoing edges of every node.
func dump(t *testing.T, st graphdb.Store) string {
	t.Helper()
	ctx := t.Context()
	files, err := st.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	nodes := map[graphdb.NodeID]graphdb.Node{}
	for _, f := range files {
		errs := ""
		if len(f.Errors) > 0 {
			errs = " errors=" + strings.Join(f.Errors, " | ")
		}
		hash := ""
		if f.Hash != "" {
			hash = " hashed"
		}
		lines = append(lines, fmt.Sprintf("owner %s lang=%s module=%s%s%s", f.Path, f.Language, f.Module, hash, errs))
		q := graphdb.SymbolQuery{File: f.Path}
		if f.IsPseudo() {
			if ms, ok := st.(*memStore); ok && f.Path == implOwner {
				for _, n := range ms.Owned(f.Path) {
					nodes[n.ID] = n // external interfaces
				}
			}
			if !strings.HasPrefix(f.Path, "@go/pkg/") {
				continue
			}
			q = graphdb.SymbolQuery{ID: pkgID(f.Module)}
		}
		ns, err := st.FindSymbols(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			nodes[n.ID] = n
		}
	}
	for _, n := range nodes {
		lines = append(lines, nodeLine(n))
		for _, k := range graphdb.EdgeKinds {
			es, err := st.Neighbors(ctx, n.ID, k, graphdb.Outbound, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				lines = append(lines, edgeLine(e))
			}
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func nodeLine(n graphdb.Node) string {
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{n.Exported, "exported"}, {n.Test, "test"}, {n.Generated, "generated"}, {n.Testdata, "testdata"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	var attrs []string
	for k, v := range n.Attrs {
		attrs = append(attrs, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(attrs)
	return fmt.Sprintf("node %s %s/%s name=%s qname=%s loc=%s file=%s lines=%d-%d sig=%q doc=%q flags=%s lang=%s %s",
		n.ID, n.Kind, n.SubKind, n.Name, n.QName, n.Loc, n.File, n.StartLine, n.EndLine, n.Signature, n.Doc,
		strings.Join(flags, ","), n.Language, strings.Join(attrs, " "))
}

func edgeLine(e graphdb.Edge) string {
	site := ""
	if e.File != "" || e.Line != 0 {
		site = fmt.Sprintf(" @%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("edge %s %s -> %s%s", e.Kind, e.From, e.To, site)
}

// assertGolden compares got with testdata/name, or rewrites it with -update.
func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got)
}

func summaryText(s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "packages=%d files=%d changed=%d deleted=%d unchanged=%v\n", s.Languages["Go"].Units, s.Files, s.Changed, s.Deleted, s.Unchanged)
	if py := s.Languages["Python"]; py.Files > 0 {
		fmt.Fprintf(&b, "python files=%d modules=%d\n", py.Files, py.Units)
	}
	for _, l := range slices.Sorted(maps.Keys(s.Languages)) {
		if l != "Go" && l != "Python" {
			fmt.Fprintf(&b, "%s files=%d extracted=%d\n", l, s.Languages[l].Files, s.Languages[l].Units)
		}
	}
	for _, d := range s.Errors {
		fmt.Fprintf(&b, "diagnostic %s\n", d)
	}
	return b.String()
}

// checkGolden indexes testdata/name.txtar into a fresh store and compares
// its summary and dump with testdata/name.golden.
func checkGolden(t *testing.T, name string) {
	t.Helper()
	root := extractTxtar(t, name)
	st := openStore(t)
	sum := runIndex(t, st, root, false)
	got := summaryText(sum) + dump(t, st)
	got = strings.ReplaceAll(got, root, "$ROOT")
	assertGolden(t, name+".golden", got)
}

// TestGolden indexes each testdata/*.txtar repository and compares the
// sorted dump of the graph (and the run's summary) with testdata/*.golden.
func TestGolden(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no testdata/*.txtar")
	}
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, name)
		})
	}
}
