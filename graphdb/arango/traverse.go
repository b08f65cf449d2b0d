package arango

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/relayhq/relay/graphdb"
)

// DESIGN: exact traversals on top of AQL.
//
// graphdb.Traverser promises the answer of graphdb.TraverseNeighbors to the
// byte: frontier nodes are expanded in order, each one's edges sorted by
// (File, Line, From, To), and a node is claimed by the first edge that
// reaches it. AQL's breadth-first traversal reaches the same nodes at the
// same (smallest) depths but in index order, so its Via and Edge would
// differ between runs and servers.
//
// So one AQL query (traverseQuery) returns the reached nodes plus every edge
// of the wanted kinds between them (and the start), and bfs replays the
// portable algorithm over that small subgraph in memory. The replay only
// ever follows edges from the start, so it needs the reached set to be a
// superset of the true one, never exact: extra nodes are simply not
// reached. The expensive part, finding the region, stays on the server in
// one round trip; the replay costs O(region edges · log).

// Traverse walks breadth-first from start; see graphdb.Traverser.
func (s *Store) Traverse(ctx context.Context, start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if depth < 1 || len(kinds) == 0 {
		return nil, nil
	}
	var res struct {
		Nodes []nodeDoc `json:"nodes"`
		Links []edgeDoc `json:"links"`
	}
	if err := s.queryOne(ctx, traverseQuery(start, kinds, dir, depth), &res); err != nil {
		return nil, fmt.Errorf("traverse %s from %s: %w", dir, start, err)
	}
	nodes := make(map[graphdb.NodeID]graphdb.Node, len(res.Nodes))
	for _, d := range res.Nodes {
		nodes[d.ID] = d.node()
	}
	edges := make([]graphdb.Edge, len(res.Links))
	for i, d := range res.Links {
		edges[i] = d.edge()
	}
	return bfs(start, kinds, dir, depth, limit, nodes, edges), nil
}

// bfs replays graphdb.TraverseNeighbors over an in-memory subgraph: nodes
// are the nodes that exist (an edge to any other node is dangling and not
// followed), edges the candidate edges of the wanted kinds.
func bfs(start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int, nodes map[graphdb.NodeID]graphdb.Node, edges []graphdb.Edge) []graphdb.Hop {
	rank := map[graphdb.EdgeKind]int{}
	for i, k := range kinds {
		if _, ok := rank[k]; !ok {
			rank[k] = i
		}
	}
	near := func(e graphdb.Edge) graphdb.NodeID {
		if dir == graphdb.Inbound {
			return e.To
		}
		return e.From
	}
	far := func(e graphdb.Edge) graphdb.NodeID {
		if dir == graphdb.Inbound {
			return e.From
		}
		return e.To
	}
	adj := map[graphdb.NodeID][]graphdb.Edge{}
	for _, e := range edges {
		if _, ok := rank[e.Kind]; !ok {
			continue
		}
		if _, ok := nodes[far(e)]; !ok {
			continue
		}
		adj[near(e)] = append(adj[near(e)], e)
	}
	for id, es := range adj {
		// TraverseNeighbors concatenates Neighbors per kind (in kinds order)
		// and stable-sorts by (File, Line, From, To); ties keep kinds order.
		slices.SortStableFunc(es, func(a, b graphdb.Edge) int {
			if c := cmp.Compare(a.File, b.File); c != 0 {
				return c
			}
			if c := cmp.Compare(a.Line, b.Line); c != 0 {
				return c
			}
			if c := cmp.Compare(a.From, b.From); c != 0 {
				return c
			}
			if c := cmp.Compare(a.To, b.To); c != 0 {
				return c
			}
			return cmp.Compare(rank[a.Kind], rank[b.Kind])
		})
		adj[id] = es
	}
	seen := map[graphdb.NodeID]bool{start: true}
	frontier := []graphdb.NodeID{start}
	var out []graphdb.Hop
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []graphdb.NodeID
		for _, id := range frontier {
			for _, e := range adj[id] {
				f := far(e)
				if seen[f] {
					continue
				}
				seen[f] = true
				out = append(out, graphdb.Hop{Node: nodes[f], Depth: d, Via: id, Edge: e})
				if limit > 0 && len(out) >= limit {
					return out
				}
				next = append(next, f)
			}
		}
		frontier = next
	}
	return out
}
