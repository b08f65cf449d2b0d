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
	DefaultGraphWeight = 1.0  // the plain 1/(distance+1); see testdata/eval_stats.txt for the ablation
	maxGraphDistance   = 3    // distances are capped here (unreached counts as 3)
	graphAnchors       = 3    // the best hits that anchor the distances
	maxGraphVisit      = 4000 // nodes a distance search may visit
)

// DESIGN: graph-aware re-ranking. The best few hits are anchors (distance
// 0); those with a graph node seed the distance search. Every other hit among the first rerankDepth gets the shortest
// undirected distance to an anchor over calls and parent edges (a method is
// 1 from its type, 2 from its siblings and from other declarations of its
// file through the file node; a caller is 1), capped at 3, and its score is
// multiplied by 1/(distance+1). Chunks without a graph node (markdown, text
// windows) count 1 when they share an anchor's file and 2 otherwise, so
// prose is neither promoted nor buried. The search goes breadth-first from
// all anchors at once and stops when every hit is placed or after
// maxGraphVisit nodes.

// reach is where a distance search found a node.
type reach struct {
	depth    int
	anchor   graphdb.NodeID
	relation string // relation of the first hop from the anchor
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
	want := map[graphdb.NodeID]bool{}
	for _, h := range hits[:n] {
		if h.NodeID != "" {
			want[h.NodeID] = true
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
			if r, ok := dist[h.NodeID]; ok {
				d = r.depth
				if d > 0 {
					why = fmt.Sprintf("graph: %d hop(s) from %s (%s)", d, names[r.anchor], r.relation)
				}
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

// distances runs a multi-source breadth-first search from anchors over
// calls and parent edges in both directions.
func (s *Searcher) distances(ctx context.Context, anchors []graphdb.NodeID, want map[graphdb.NodeID]bool) (map[graphdb.NodeID]reach, error) {
	out := map[graphdb.NodeID]reach{}
	var frontier []graphdb.NodeID
	found := 0
	for _, a := range anchors {
		if _, ok := out[a]; ok {
			continue
		}
		out[a] = reach{depth: 0, anchor: a}
		frontier = append(frontier, a)
		if want[a] {
			found++
		}
	}
	type leg struct {
		kind graphdb.EdgeKind
		dir  graphdb.Direction
		rel  string
	}
	legs := []leg{
		{graphdb.EdgeCalls, graphdb.Outbound, "called by it"},
		{graphdb.EdgeCalls, graphdb.Inbound, "calls it"},
		{graphdb.EdgeParent, graphdb.Outbound, "its container"},
		{graphdb.EdgeParent, graphdb.Inbound, "declared in it"},
	}
	for d := 1; d <= maxGraphDistance && len(frontier) > 0 && found < len(want) && len(out) < maxGraphVisit; d++ {
		var next []graphdb.NodeID
		for _, id := range frontier {
			_, isChunk := s.byNode[id]
			for _, l := range legs {
				// Containers (files, modules) lead down to their children
				// but not up: a package is not "near" all its files' code.
				if !isChunk && l.kind == graphdb.EdgeParent && l.dir == graphdb.Outbound {
					continue
				}
				es, err := s.graph.Neighbors(ctx, id, l.kind, l.dir, 0)
				if err != nil {
					return nil, fmt.Errorf("graph neighbours of %s: %w", id, err)
				}
				for _, e := range es {
					far := e.To
					if l.dir == graphdb.Inbound {
						far = e.From
					}
					if _, seen := out[far]; seen {
						continue
					}
					r := reach{depth: d, anchor: out[id].anchor, relation: out[id].relation}
					if d == 1 {
						r.relation = l.rel
					}
					out[far] = r
					if want[far] {
						found++
					}
					next = append(next, far)
				}
			}
		}
		frontier = next
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

func refOf(n graphdb.Node) Ref {
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
		r := refOf(p)
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
			c.Siblings = append(c.Siblings, refOf(sn))
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
			ref := refOf(r.Node)
			if op == graphdb.OpCallers {
				c.Callers = append(c.Callers, ref)
			} else {
				c.Callees = append(c.Callees, ref)
			}
		}
	}
	return c, nil
}

// shortSig trims a signature for one-line rendering.
func shortSig(r Ref) string {
	if r.Signature != "" {
		return strings.TrimSpace(r.Signature)
	}
	if r.QName != "" {
		return r.QName
	}
	return r.Name
}
