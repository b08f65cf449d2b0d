package retrieve

import (
	"context"
	"fmt"
	"sort"

	"github.com/relayhq/relay/graphdb"
)

// Neighbour is a symbol found similar to a set of anchor symbols.
type Neighbour struct {
	Ref
	// Depth is the graph distance to the nearest anchor, MaxGraphDistance
	// when none was reached.
	Depth int
	// Anchor is the anchor it is nearest to; "" when none was reached.
	Anchor graphdb.NodeID
}

// MaxGraphDistance caps graph distances: a symbol farther from every anchor
// (or not reached at all) counts this far.
const MaxGraphDistance = maxGraphDistance

// Neighbours searches with query (no fast path, no graph re-rank), then
// re-ranks the hits that have a graph node by their distance to the
// anchors, score × 1/(distance+1) with the distance capped at
// MaxGraphDistance, and returns the best limit of them, leaving out the
// nodes in skip. The review's "semantic neighbours" come from here.
func (s *Searcher) Neighbours(ctx context.Context, query string, anchors []graphdb.NodeID, skip map[graphdb.NodeID]bool, limit int) ([]Neighbour, error) {
	res, err := s.Search(ctx, query, SearchOptions{Limit: 40, NoFastPath: true, NoGraph: true})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var want []graphdb.NodeID
	for _, h := range res.Hits {
		if h.NodeID != "" && !skip[h.NodeID] {
			want = append(want, h.NodeID)
		}
	}
	var dist map[graphdb.NodeID]reach
	if s.graph != nil {
		if dist, err = s.distances(ctx, anchors, want); err != nil {
			return nil, err
		}
	}
	type cand struct {
		h     Hit
		score float64
		r     reach
	}
	var cands []cand
	for _, h := range res.Hits {
		if h.NodeID == "" || skip[h.NodeID] {
			continue
		}
		r, ok := dist[h.NodeID]
		if !ok {
			r = reach{depth: maxGraphDistance}
		}
		cands = append(cands, cand{h, h.Score / float64(r.depth+1), r})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var out []Neighbour
	for _, c := range cands {
		if len(out) >= limit {
			break
		}
		ref := Ref{Name: c.h.Name, QName: c.h.QName, Kind: c.h.Kind, Location: c.h.Location(), Signature: c.h.Signature}
		if s.graph != nil {
			if n, err := s.graph.Node(ctx, c.h.NodeID); err == nil {
				ref = RefOf(n)
			}
		}
		out = append(out, Neighbour{Ref: ref, Depth: c.r.depth, Anchor: c.r.anchor})
	}
	return out, nil
}
