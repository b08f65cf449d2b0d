package graphdb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

// portable hides a store's native traversals, so graphdb falls back to
// Reader.Neighbors.
type portable struct{ graphdb.Reader }

// randomDispatchGraph stores a random call graph with interface dispatch:
// functions, concrete types whose methods share names with interface
// methods (and a field that must not count), types implementing one or two
// interfaces (so one interface method stands for several concrete ones),
// calls to functions, methods and interface methods, self-calls and cycles,
// and test functions, spread over files. It returns the store and the ids
// of every callable.
func randomDispatchGraph(t *testing.T, seed uint64) (graphdb.Store, []graphdb.NodeID) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const nFiles, nIfaces, nTypes, nFuncs = 5, 3, 6, 40
	methodNames := []string{"Read", "Write", "Close"}
	nodes := map[string][]graphdb.Node{}
	edges := map[string][]graphdb.Edge{}
	line := map[string]int{}
	add := func(id, kind, sub, name string, test bool) graphdb.Node {
		file := fmt.Sprintf("f%d.go", r.IntN(nFiles))
		if test {
			file = fmt.Sprintf("f%d_test.go", r.IntN(nFiles))
		}
		line[file] += 5
		n := graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.NodeKind(kind), SubKind: sub, Name: name, QName: "p." + id,
			Language: "go", File: file, StartLine: line[file], EndLine: line[file] + 4, Exported: r.IntN(2) == 0, Test: test}
		nodes[file] = append(nodes[file], n)
		return n
	}
	var callables, calleesOnly []graphdb.Node
	var ifaceTypes []graphdb.Node
	for i := range nIfaces {
		it := add(fmt.Sprintf("I%d", i), "type", "interface", fmt.Sprintf("I%d", i), false)
		ifaceTypes = append(ifaceTypes, it)
		for _, m := range methodNames[:1+i%len(methodNames)] {
			im := add(fmt.Sprintf("I%d.%s", i, m), "member", "method", m, false)
			edges[im.File] = append(edges[im.File], graphdb.Edge{From: im.ID, To: it.ID, Kind: graphdb.EdgeParent, File: im.File, Line: im.StartLine})
			calleesOnly = append(calleesOnly, im)
		}
	}
	var implements []graphdb.Edge
	for i := range nTypes {
		typ := add(fmt.Sprintf("T%d", i), "type", "struct", fmt.Sprintf("T%d", i), false)
		for _, m := range methodNames {
			if r.IntN(3) == 0 {
				continue
			}
			mn := add(fmt.Sprintf("T%d.%s", i, m), "member", "method", m, false)
			edges[mn.File] = append(edges[mn.File], graphdb.Edge{From: mn.ID, To: typ.ID, Kind: graphdb.EdgeParent, File: mn.File, Line: mn.StartLine})
			callables = append(callables, mn)
		}
		if i == 0 { // a field named like a method
			f := add("T0.fieldRead", "member", "field", "Read", false)
			edges[f.File] = append(edges[f.File], graphdb.Edge{From: f.ID, To: typ.ID, Kind: graphdb.EdgeParent, File: f.File, Line: f.StartLine})
		}
		for _, j := range r.Perm(nIfaces)[:1+r.IntN(2)] {
			implements = append(implements, graphdb.Edge{From: typ.ID, To: ifaceTypes[j].ID, Kind: graphdb.EdgeImplements})
		}
	}
	for i := range nFuncs {
		callables = append(callables, add(fmt.Sprintf("F%d", i), "function", "", fmt.Sprintf("F%d", i), i%9 == 8))
	}
	seen := map[graphdb.Edge]bool{}
	for _, from := range callables {
		for range r.IntN(4) {
			var to graphdb.Node
			switch k := r.IntN(10); {
			case k < 3:
				to = calleesOnly[r.IntN(len(calleesOnly))]
			case k == 3:
				to = from // recursion
			default:
				to = callables[r.IntN(len(callables))]
			}
			e := graphdb.Edge{From: from.ID, To: to.ID, Kind: graphdb.EdgeCalls, File: from.File, Line: from.StartLine + 1 + r.IntN(3)}
			if !seen[e] {
				seen[e] = true
				edges[from.File] = append(edges[from.File], e)
			}
		}
	}
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for f := range nodes {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: f, Language: "go"}, nodes[f], edges[f]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "@go/implements", Language: "go"}, nil, implements); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var ids []graphdb.NodeID
	for _, n := range append(callables, calleesOnly...) {
		ids = append(ids, n.ID)
	}
	return st, ids
}

// perTargetBlast is the blast radius computed the way BlastRadius did
// before it became one multi-source walk: one Query(OpCallers) per target,
// merged by smallest depth, targets left out. It returns each caller's
// depth, the callers' and targets' files, the tests and the risk.
func perTargetBlast(ctx context.Context, r graphdb.Reader, targets []graphdb.NodeID, depth int) (map[graphdb.NodeID]int, []string, map[graphdb.NodeID]int, int, error) {
	inTargets := map[graphdb.NodeID]bool{}
	files := map[string]bool{}
	exported := false
	for _, id := range targets {
		n, err := r.Node(ctx, id)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		inTargets[id] = true
		exported = exported || n.Exported
		files[n.File] = true
	}
	best := map[graphdb.NodeID]graphdb.Result{}
	for _, id := range targets {
		rs, err := graphdb.Query(ctx, r, graphdb.OpCallers, id, depth, 0)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		for _, res := range rs {
			if old, ok := best[res.Node.ID]; !inTargets[res.Node.ID] && (!ok || res.Depth < old.Depth) {
				best[res.Node.ID] = res
			}
		}
	}
	depths, tests := map[graphdb.NodeID]int{}, map[graphdb.NodeID]int{}
	direct, transitive := 0, 0
	for id, res := range best {
		depths[id] = res.Depth
		files[res.Node.File] = true
		if res.Node.Test {
			tests[id] = res.Depth
		}
		if res.Depth == 1 {
			direct++
		} else {
			transitive++
		}
	}
	var fs []string
	for f := range files {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return depths, fs, tests, graphdb.RiskScore(direct, transitive, len(fs), exported, len(tests) == 0), nil
}

// TestBlastRadiusPerTarget checks the multi-source BlastRadius against the
// per-target reference on random graphs with interface dispatch: the same
// callers at the same depths, files, tests and risk; every Via one hop
// nearer a target (or the target a call through an interface runs); and
// the native traversal giving exactly the portable answer.
func TestBlastRadiusPerTarget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for seed := range uint64(8) {
		st, ids := randomDispatchGraph(t, seed)
		r := rand.New(rand.NewPCG(seed, 11))
		for _, n := range []int{1, 2, 5, 12, len(ids)} {
			targets := slices.Clone(ids)
			r.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
			targets = targets[:n]
			if n > 1 {
				targets = append(targets, targets[0]) // a duplicate counts once
			}
			for _, depth := range []int{1, 2, 3, 5} {
				name := fmt.Sprintf("seed %d, %d targets, depth %d", seed, n, depth)
				wantDepths, wantFiles, wantTests, wantRisk, err := perTargetBlast(ctx, st, targets, depth)
				if err != nil {
					t.Fatal(err)
				}
				got, err := graphdb.BlastRadius(ctx, st, targets, depth)
				if err != nil {
					t.Fatal(err)
				}
				depths, tests := map[graphdb.NodeID]int{}, map[graphdb.NodeID]int{}
				all := append(slices.Clone(got.Direct), got.Transitive...)
				for i, res := range all {
					if _, dup := depths[res.Node.ID]; dup {
						t.Errorf("%s: %s listed twice", name, res.Node.ID)
					}
					depths[res.Node.ID] = res.Depth
					if (res.Depth == 1) != (i < len(got.Direct)) {
						t.Errorf("%s: %s at depth %d in the wrong list", name, res.Node.ID, res.Depth)
					}
				}
				for _, res := range got.Tests {
					tests[res.Node.ID] = res.Depth
				}
				if diff := cmp.Diff(wantDepths, depths); diff != "" {
					t.Errorf("%s: caller depths (-per-target +got):\n%s", name, diff)
				}
				if diff := cmp.Diff(wantFiles, got.Files); diff != "" {
					t.Errorf("%s: files (-per-target +got):\n%s", name, diff)
				}
				if diff := cmp.Diff(wantTests, tests); diff != "" {
					t.Errorf("%s: tests (-per-target +got):\n%s", name, diff)
				}
				if got.Risk != wantRisk {
					t.Errorf("%s: risk %d, per-target %d", name, got.Risk, wantRisk)
				}
				for _, res := range all {
					if res.Depth == 1 && !slices.Contains(targets, res.Via) {
						t.Errorf("%s: direct caller %s via %s, not a target", name, res.Node.ID, res.Via)
					}
					if res.Depth > 1 && depths[res.Via] != res.Depth-1 {
						t.Errorf("%s: %s at depth %d via %s at depth %d", name, res.Node.ID, res.Depth, res.Via, depths[res.Via])
					}
				}
				again, err := graphdb.BlastRadius(ctx, portable{st}, targets, depth)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("%s: native and portable traversals differ (-native +portable):\n%s", name, diff)
				}
			}
		}
	}
}
