package graphdb

import (
	"context"
	"fmt"
	"sort"
)

// Traverse walks breadth-first from start; it uses the backend's Traverser
// when there is one and repeated Neighbors calls otherwise. See
// [Traverser.Traverse] for the contract.
func Traverse(ctx context.Context, r Reader, start NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error) {
	if t, ok := r.(Traverser); ok {
		return t.Traverse(ctx, start, kinds, dir, depth, limit)
	}
	return TraverseNeighbors(ctx, r, start, kinds, dir, depth, limit)
}

// TraverseNeighbors is the portable Traverse, built on Reader.Neighbors. It is
// exported so backends can check their native traversal against it.
func TraverseNeighbors(ctx context.Context, r Reader, start NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error) {
	return TraverseMultiNeighbors(ctx, r, []NodeID{start}, kinds, dir, depth, limit)
}

// TraverseMulti walks breadth-first from all of starts at once; it uses the
// backend's MultiTraverser when there is one, its Traverser for a single
// start, and repeated Neighbors calls otherwise. See
// [MultiTraverser.TraverseMulti] for the contract.
func TraverseMulti(ctx context.Context, r Reader, starts []NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error) {
	if t, ok := r.(MultiTraverser); ok {
		return t.TraverseMulti(ctx, starts, kinds, dir, depth, limit)
	}
	if t, ok := r.(Traverser); ok && len(starts) == 1 {
		return t.Traverse(ctx, starts[0], kinds, dir, depth, limit)
	}
	return TraverseMultiNeighbors(ctx, r, starts, kinds, dir, depth, limit)
}

// TraverseMultiNeighbors is the portable TraverseMulti, built on
// Reader.Neighbors. It is exported so backends can check their native
// traversal against it.
//
// DESIGN: the starts form depth 0 of one breadth-first search. They are
// all marked seen before the first step, so none is returned, and the
// frontier keeps their order (first occurrence), so a node at equal
// distance from two starts is claimed through the earlier one. With one
// start this is exactly the single-source walk.
func TraverseMultiNeighbors(ctx context.Context, r Reader, starts []NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error) {
	seen := make(map[NodeID]bool, len(starts))
	frontier := make([]NodeID, 0, len(starts))
	for _, s := range starts {
		if !seen[s] {
			seen[s] = true
			frontier = append(frontier, s)
		}
	}
	var out []Hop
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []NodeID
		for _, id := range frontier {
			var edges []Edge
			for _, k := range kinds {
				es, err := r.Neighbors(ctx, id, k, dir, 0)
				if err != nil {
					return nil, err
				}
				edges = append(edges, es...)
			}
			sortEdges(edges)
			for _, e := range edges {
				far := e.To
				if dir == Inbound {
					far = e.From
				}
				if seen[far] {
					continue
				}
				seen[far] = true
				n, err := r.Node(ctx, far)
				if err != nil {
					return nil, fmt.Errorf("traverse %s: %w", far, err)
				}
				out = append(out, Hop{Node: n, Depth: d, Via: id, Edge: e})
				if limit > 0 && len(out) >= limit {
					return out, nil
				}
				next = append(next, far)
			}
		}
		frontier = next
	}
	return out, nil
}

func sortEdges(es []Edge) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
}

// SortEdges orders edges by (File, Line, From, To), the order Neighbors
// promises.
func SortEdges(es []Edge) { sortEdges(es) }
