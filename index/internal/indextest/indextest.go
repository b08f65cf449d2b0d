// Package indextest holds what the indexer's tests share, in package
// index and in each language's package: txtar repositories, an in-memory
// store, a sorted text dump of the graph, the rendering of a run's
// Summary, and golden files of both (Golden). It imports no indexer: a
// test passes the run, so that package index's own tests use it too.
package indextest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/internal/testutil"
)

// ExtractTxtar writes the files of testdata/name.txtar (or of the archive
// at path name when it ends in .txtar) into a new temporary directory and
// returns it.
func ExtractTxtar(t testing.TB, name string) string {
	t.Helper()
	file := filepath.Join("testdata", name+".txtar")
	if strings.HasSuffix(name, ".txtar") {
		file = name // a path
	}
	return testutil.WriteTxtar(t, file)
}

// OpenStore returns an empty in-memory store (graphdb/memstore, which
// passes the storetest conformance suite): the tests exercise the indexer
// alone.
func OpenStore() *memstore.Store { return memstore.New() }

// ReadFile returns the content of rel under root.
func ReadFile(t *testing.T, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Run indexes root into st; full asks for a full run (index.Run with
// Options.Full).
type Run func(t *testing.T, st graphdb.Store, root string, full bool) frontend.Summary

// Golden indexes testdata/name.txtar into a fresh store with run and
// compares its summary and dump with testdata/name.golden (rewritten with
// -update).
func Golden(t *testing.T, name string, run Run) {
	t.Helper()
	root := ExtractTxtar(t, name)
	st := OpenStore()
	got := SummaryText(run(t, st, root, false)) + Dump(t, st)
	testutil.Golden(t, name+".golden", strings.ReplaceAll(got, root, "$ROOT"))
}

// GoldenAll runs Golden, in parallel subtests, for every testdata/*.txtar
// of the calling package: a language's golden test is this one call.
func GoldenAll(t *testing.T, run Run) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no testdata/*.txtar: %v", err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			Golden(t, name, run)
		})
	}
}

// MatchesFullIndex returns the dump of st (just indexed incrementally)
// and reports, under step's name, where it differs from a fresh full
// index of the same tree.
func MatchesFullIndex(t *testing.T, step string, st graphdb.Store, root string, run Run) string {
	t.Helper()
	got := Dump(t, st)
	fresh := OpenStore()
	run(t, fresh, root, true)
	if diff := cmp.Diff(Dump(t, fresh), got); diff != "" {
		t.Errorf("%s: incremental graph differs from a full index (-full +incremental):\n%s", step, diff)
	}
	return got
}

// SummaryText renders what the golden files show of a run's Summary.
func SummaryText(s frontend.Summary) string {
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

// DumpHolds reports, under step's name, each of want the dump lacks and
// each of notWant it still holds; empty strings are skipped.
func DumpHolds(t *testing.T, step, got string, want, notWant []string) {
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

// Dump renders everything st holds for the repository as sorted text:
// file records, nodes and the outgoing edges of every node. Go's
// pseudo-owners show their nodes: the package nodes of "@go/pkg/…" and,
// in a memstore, the external interfaces of "@go/implements".
func Dump(t *testing.T, st graphdb.Store) string {
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
			if ms, ok := st.(*memstore.Store); ok && f.Path == "@go/implements" {
				for _, n := range ms.Owned(f.Path) {
					nodes[n.ID] = n // external interfaces
				}
			}
			if !strings.HasPrefix(f.Path, "@go/pkg/") {
				continue
			}
			q = graphdb.SymbolQuery{ID: graphdb.NodeID("go:pkg:" + f.Module)}
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
