package retrieve

import (
	"context"
	"fmt"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// Graph re-ranking parameters.
const (
	// DefaultGraphWeight is the blend of the graph factor used when a search
	// does not set one (see SearchOptions.GraphWeight).
	DefaultGraphWeight = 1.0  // the plain 1/(distance+1); see eval/testdata/eval_stats.txt for the ablation
	maxGraphDistance   = 3    // distances are capped here (unreached counts as 3)
	graphAnchors       = 3    // the best hits that anchor the distances
	maxGraphVisit      = 4000 // nodes a distance search may visit
)

// DESIGN: graph-aware re-ranking. The best few hits are anchors (distance
// 0); those with a graph node seed the distance computation. Every other
// hit among the first rerankDepth gets its undirected distance to the
// nearest anchor over calls edges and member↔type parent edges, plus the
// file: two declarations of one file are 2 apart (declaration → file →
// declaration). The distance is capped at 3 and an unreached hit counts 3,
// so only distances 1 and 2 need finding: 1 when the hit is a neighbour of
// an anchor, 2 when it shares a neighbour with one or a file. That takes one
// neighbour lookup per anchor and per hit instead of a breadth-first search
// that explodes through hub functions and files. A hit's score is then
// multiplied by (1−w) + w/(distance+1), w = SearchOptions.GraphWeight
// (1 by default: plain 1/(distance+1)). Chunks without a graph node
// (markdown, text windows) count 1 when they share an anchor's file and 2
// otherwise, so prose is neither promoted nor buried.

// reach is how a hit relates to the nearest anchor.
type reach struct {
	depth    int
	anchor   graphdb.NodeID
	relation string
}

func (s *Searcher) graphRerank(ctx context.Context, hits []Hit, w float64) error {
	n := min(len(hits), rerankDepth)
	var anchors []graphdb.NodeID
	anchorFiles := map[string]bool{}
	isAnchor := map[int]bool{}
	for i := 0; i < n && i < graphAnchors; i++ {
		isAnchor[i] = true
		anchorFiles[hits[i].Path] = true
		if hits[i].NodeID != "" {
			anchors = append(anchors, hits[i].NodeID)
		}
	}
	if len(anchors) == 0 {
		return nil
	}
	var want []graphdb.NodeID
	for i, h := range hits[:n] {
		if !isAnchor[i] && h.NodeID != "" {
			want = append(want, h.NodeID)
		}
	}
	dist, err := s.distances(ctx, anchors, want)
	if err != nil {
		return err
	}
	names := map[graphdb.NodeID]string{}
	for _, h := range hits[:n] {
		names[h.NodeID] = h.Name
	}
	for i := range hits[:n] {
		h := &hits[i]
		d := maxGraphDistance
		var why string
		switch {
		case isAnchor[i]:
			d = 0
		case h.NodeID == "":
			d = 2
			if anchorFiles[h.Path] {
				d = 1
			}
		default:
			if r, ok := dist[h.NodeID]; ok && r.depth < maxGraphDistance {
				d = r.depth
				why = fmt.Sprintf("graph: %d hop(s) from %s (%s)", d, names[r.anchor], r.relation)
			}
		}
		h.Score *= (1 - w) + w/float64(d+1)
		if why != "" {
			h.Why = append(h.Why, why)
		}
	}
	sortHits(hits[:n])
	return nil
}

// maxNeighbourEdges caps one neighbour lookup (hub functions have
// thousands of callers; a few hundred decide proximity as well).
const maxNeighbourEdges = 300

// neighbours1 returns the symbols one hop from id over calls edges (both
// directions) and parent edges between members and types, with the
// relation of each, through graphdb.Traverse (one call per direction).
// Files and modules are left to the same-file rule.
func (s *Searcher) neighbours1(ctx context.Context, id graphdb.NodeID) (map[graphdb.NodeID]string, error) {
	out := map[graphdb.NodeID]string{}
	kind := ""
	if d, ok := s.byNode[id]; ok {
		kind = s.ix.Chunks[d].Kind
	}
	for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
		kinds := []graphdb.EdgeKind{graphdb.EdgeCalls}
		if dir == graphdb.Outbound && kind == ChunkMethod || dir == graphdb.Inbound && kind == ChunkType {
			kinds = append(kinds, graphdb.EdgeParent)
		}
		hops, err := graphdb.Traverse(ctx, s.graph, id, kinds, dir, 1, maxNeighbourEdges)
		if err != nil {
			return nil, fmt.Errorf("graph neighbours of %s: %w", id, err)
		}
		for _, h := range hops {
			if _, seen := out[h.Node.ID]; seen || h.Node.ID == id {
				continue
			}
			out[h.Node.ID] = hopRelation(h.Edge.Kind, dir)
		}
	}
	return out, nil
}

// hopRelation names how a node one hop away relates, seen from the start.
func hopRelation(k graphdb.EdgeKind, dir graphdb.Direction) string {
	switch {
	case k == graphdb.EdgeCalls && dir == graphdb.Outbound:
		return "called by it"
	case k == graphdb.EdgeCalls:
		return "calls it"
	case dir == graphdb.Outbound:
		return "its type"
	default:
		return "member of it"
	}
}

// distances finds, for each node of want, distance 1 (a neighbour of an
// anchor) or 2 (shares a neighbour with one, or a file); nodes not in the
// result are 3 or more away, which the cap makes equal.
func (s *Searcher) distances(ctx context.Context, anchors, want []graphdb.NodeID) (map[graphdb.NodeID]reach, error) {
	out := map[graphdb.NodeID]reach{}
	near := map[graphdb.NodeID]reach{} // anchors' neighbours
	anchorFile := map[string]graphdb.NodeID{}
	for _, a := range anchors {
		out[a] = reach{depth: 0, anchor: a}
		if d, ok := s.byNode[a]; ok {
			if _, dup := anchorFile[s.ix.Chunks[d].Path]; !dup {
				anchorFile[s.ix.Chunks[d].Path] = a
			}
		}
		ns, err := s.neighbours1(ctx, a)
		if err != nil {
			return nil, err
		}
		for id, rel := range ns {
			if _, ok := near[id]; !ok {
				near[id] = reach{depth: 1, anchor: a, relation: rel}
			}
		}
	}
	for _, id := range want {
		if _, done := out[id]; done {
			continue
		}
		if r, ok := near[id]; ok {
			out[id] = r
			continue
		}
		if d, ok := s.byNode[id]; ok {
			if a, ok := anchorFile[s.ix.Chunks[d].Path]; ok {
				out[id] = reach{depth: 2, anchor: a, relation: "same file"}
				continue
			}
		}
		ns, err := s.neighbours1(ctx, id)
		if err != nil {
			return nil, err
		}
		for m := range ns {
			if r, ok := near[m]; ok {
				out[id] = reach{depth: 2, anchor: r.anchor, relation: "shares a neighbour"}
				break
			}
			if _, isAnchor := out[m]; isAnchor && out[m].depth == 0 {
				out[id] = reach{depth: 1, anchor: m, relation: "adjacent"}
				break
			}
		}
	}
	return out, nil
}

// Ref names a related symbol.
type Ref struct {
	Name      string `json:"name"`
	QName     string `json:"qname,omitempty"`
	Kind      string `json:"kind"`
	Location  string `json:"location,omitempty"` // path:line
	Signature string `json:"signature,omitempty"`
}

// RefOf describes a node for reports and review contexts.
func RefOf(n graphdb.Node) Ref {
	r := Ref{Name: n.Name, QName: n.QName, Kind: string(n.Kind), Signature: n.Signature}
	if n.SubKind != "" {
		r.Kind = n.SubKind
	}
	if n.File != "" {
		r.Location = fmt.Sprintf("%s:%d", n.File, n.StartLine)
	}
	return r
}

// Context is the graph neighbourhood attached to a hit by expansion.
type Context struct {
	Parent   *Ref     `json:"parent,omitempty"`   // the type a method belongs to
	Siblings []Ref    `json:"siblings,omitempty"` // up to 3 other methods of that type
	Imports  []string `json:"imports,omitempty"`  // up to 5 imports of the hit's file
	Callers  []Ref    `json:"callers,omitempty"`  // one hop, up to 5
	Callees  []Ref    `json:"callees,omitempty"`  // one hop, up to 5
}

// Limits of context expansion.
const (
	maxSiblings = 3
	maxImports  = 5
	maxCallRefs = 5
)

func (s *Searcher) expand(ctx context.Context, id graphdb.NodeID) (*Context, error) {
	return expandNode(ctx, s.graph, id)
}

// expandNode collects the context of one symbol.
func expandNode(ctx context.Context, g graphdb.Reader, id graphdb.NodeID) (*Context, error) {
	n, err := g.Node(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("expand %s: %w", id, err)
	}
	c := &Context{}
	ups, err := g.Neighbors(ctx, id, graphdb.EdgeParent, graphdb.Outbound, 1)
	if err != nil {
		return nil, err
	}
	for _, e := range ups {
		p, err := g.Node(ctx, e.To)
		if err != nil || p.Kind != graphdb.KindType {
			continue
		}
		r := RefOf(p)
		c.Parent = &r
		sibs, err := g.Neighbors(ctx, p.ID, graphdb.EdgeParent, graphdb.Inbound, 0)
		if err != nil {
			return nil, err
		}
		for _, se := range sibs {
			if se.From == id || len(c.Siblings) >= maxSiblings {
				continue
			}
			sn, err := g.Node(ctx, se.From)
			if err != nil || sn.SubKind == "field" {
				continue
			}
			c.Siblings = append(c.Siblings, RefOf(sn))
		}
	}
	if n.File != "" {
		files, err := g.FindSymbols(ctx, graphdb.SymbolQuery{File: n.File, Kinds: []graphdb.NodeKind{graphdb.KindFile}, Limit: 1})
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			imps, err := g.Neighbors(ctx, f.ID, graphdb.EdgeImports, graphdb.Outbound, 0)
			if err != nil {
				return nil, err
			}
			seen := map[graphdb.NodeID]bool{}
			for _, e := range imps {
				if seen[e.To] || len(c.Imports) >= maxImports {
					continue
				}
				seen[e.To] = true
				name := string(e.To)
				if m, err := g.Node(ctx, e.To); err == nil && m.QName != "" {
					name = m.QName
				}
				c.Imports = append(c.Imports, name)
			}
		}
	}
	for _, op := range []graphdb.Op{graphdb.OpCallers, graphdb.OpCallees} {
		rs, err := graphdb.Query(ctx, g, op, id, 1, maxCallRefs)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			ref := RefOf(r.Node)
			if op == graphdb.OpCallers {
				c.Callers = append(c.Callers, ref)
			} else {
				c.Callees = append(c.Callees, ref)
			}
		}
	}
	return c, nil
}

// ShortSig trims a signature for one-line rendering.
func ShortSig(r Ref) string {
	if r.Signature != "" {
		return strings.TrimSpace(r.Signature)
	}
	if r.QName != "" {
		return r.QName
	}
	return r.Name
}
