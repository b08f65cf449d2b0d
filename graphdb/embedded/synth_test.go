package embedded

import (
	"fmt"
	"math/rand/v2"

	"github.com/relayhq/relay/graphdb"
)

// synthOwner is one file of a synthetic graph.
type synthOwner struct {
	file  graphdb.FileRecord
	nodes []graphdb.Node
	edges []graphdb.Edge
}

// synthGraph is a deterministic std-like graph: files in packages, a file
// node, types with methods and functions per file, and a power-law (Zipf)
// call graph so a few hubs have tens of thousands of callers, like
// fmt.Errorf or errors.New in the Go standard library.
type synthGraph struct {
	owners []synthOwner
	funcs  []graphdb.NodeID // callables; funcs[0] is the biggest hub
	nodes  int
	edges  int
}

// genGraph builds files×perFile declarations with calls outgoing calls each.
func genGraph(files, perFile, calls int) *synthGraph { return genGraphSeed(1, files, perFile, calls) }

// genGraphSeed is genGraph with another call graph over the same ids.
func genGraphSeed(seed uint64, files, perFile, calls int) *synthGraph {
	r := rand.New(rand.NewPCG(seed, 2))
	g := &synthGraph{}
	total := files * perFile
	for i := range total {
		f, j := i/perFile, i%perFile
		g.funcs = append(g.funcs, graphdb.NodeID(fmt.Sprintf("go:ex/p%03d.T%d.M%d", f/10, f, j)))
	}
	zipf := rand.NewZipf(r, 1.15, 4, uint64(total-1))
	for f := range files {
		pkg := fmt.Sprintf("ex/p%03d", f/10)
		path := fmt.Sprintf("p%03d/f%d.go", f/10, f)
		o := synthOwner{file: graphdb.FileRecord{Path: path, Hash: fmt.Sprintf("%016x", r.Uint64()), Language: "go", Module: pkg, Size: int64(1000 + r.IntN(20000))}}
		fileID := graphdb.NodeID("file:" + path)
		o.nodes = append(o.nodes, graphdb.Node{ID: fileID, Kind: graphdb.KindFile, Name: fmt.Sprintf("f%d.go", f), QName: path, Loc: path, Language: "go", File: path, StartLine: 1, EndLine: 40 * perFile})
		typ := graphdb.NodeID(fmt.Sprintf("go:%s.T%d", pkg, f))
		o.nodes = append(o.nodes, graphdb.Node{ID: typ, Kind: graphdb.KindType, SubKind: "struct", Name: fmt.Sprintf("T%d", f), QName: fmt.Sprintf("%s.T%d", pkg, f),
			Loc: fmt.Sprintf("%s:T%d", path, f), Language: "go", File: path, StartLine: 3, EndLine: 9, Exported: true, Doc: "T is a synthetic type."})
		o.edges = append(o.edges, graphdb.Edge{From: typ, To: fileID, Kind: graphdb.EdgeParent, File: path, Line: 3})
		for j := range perFile {
			id := g.funcs[f*perFile+j]
			line := 10 + 40*j
			o.nodes = append(o.nodes, graphdb.Node{ID: id, Kind: graphdb.KindMember, SubKind: "method", Name: fmt.Sprintf("M%d", j),
				QName: fmt.Sprintf("%s.T%d.M%d", pkg, f, j), Loc: fmt.Sprintf("%s:T%d.M%d", path, f, j), Language: "go", File: path,
				StartLine: line, EndLine: line + 30, Signature: fmt.Sprintf("func (t *T%d) M%d(ctx context.Context, n int) error", f, j),
				Exported: true, Doc: "M does synthetic work."})
			o.edges = append(o.edges, graphdb.Edge{From: id, To: typ, Kind: graphdb.EdgeParent, File: path, Line: line})
			for c := range calls {
				callee := g.funcs[zipf.Uint64()]
				o.edges = append(o.edges, graphdb.Edge{From: id, To: callee, Kind: graphdb.EdgeCalls, File: path, Line: line + 1 + c})
			}
		}
		g.nodes += len(o.nodes)
		g.edges += len(o.edges)
		g.owners = append(g.owners, o)
	}
	return g
}
