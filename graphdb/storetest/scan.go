package storetest

import (
	"errors"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// testScan checks graphdb.Scanner (skipped when the backend lacks it):
// every node once with its owner, every edge whose ends are stored with
// its owner (in any order), and fn's error stops the scan.
func testScan(t *testing.T, s graphdb.Store) {
	sc, ok := s.(graphdb.Scanner)
	if !ok {
		t.Skip("the backend does not implement graphdb.Scanner")
	}
	ctx := t.Context()
	type ownedNode struct {
		Owner string
		Node  graphdb.Node
	}
	type ownedEdge struct {
		Owner string
		Edge  graphdb.Edge
	}
	var wantNodes []ownedNode
	var wantEdges []ownedEdge
	stored := fixtureNodes()
	owners := fixture()
	sort.Slice(owners, func(i, j int) bool { return owners[i].file.Path < owners[j].file.Path })
	for _, o := range owners {
		for _, n := range o.nodes {
			wantNodes = append(wantNodes, ownedNode{o.file.Path, n})
		}
		es := append([]graphdb.Edge(nil), o.edges...)
		graphdb.SortEdges(es)
		for _, e := range es {
			if _, ok := stored[e.From]; !ok {
				continue
			}
			if _, ok := stored[e.To]; !ok {
				continue
			}
			wantEdges = append(wantEdges, ownedEdge{o.file.Path, e})
		}
	}
	sort.Slice(wantNodes, func(i, j int) bool { return wantNodes[i].Node.ID < wantNodes[j].Node.ID })
	var gotNodes []ownedNode
	if err := sc.ScanNodes(ctx, func(owner string, n graphdb.Node) error {
		gotNodes = append(gotNodes, ownedNode{owner, n})
		return nil
	}); err != nil {
		t.Fatalf("ScanNodes: %v", err)
	}
	sort.Slice(gotNodes, func(i, j int) bool { return gotNodes[i].Node.ID < gotNodes[j].Node.ID })
	if diff := cmp.Diff(wantNodes, gotNodes, nodeOpts); diff != "" {
		t.Errorf("ScanNodes (-want +got):\n%s", diff)
	}
	var gotEdges []ownedEdge
	if err := sc.ScanEdges(ctx, func(owner string, e graphdb.Edge) error {
		gotEdges = append(gotEdges, ownedEdge{owner, e})
		return nil
	}); err != nil {
		t.Fatalf("ScanEdges: %v", err)
	}
	sortOwned := func(es []ownedEdge) {
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].Owner != es[j].Owner {
				return es[i].Owner < es[j].Owner
			}
			return es[i].Edge.Key() < es[j].Edge.Key()
		})
	}
	sortOwned(wantEdges)
	sortOwned(gotEdges)
	if diff := cmp.Diff(wantEdges, gotEdges); diff != "" {
		t.Errorf("ScanEdges (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	calls := 0
	err := sc.ScanEdges(ctx, func(string, graphdb.Edge) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("ScanEdges with a failing fn: err %v after %d calls; want stop after 1", err, calls)
	}
}
