package arango

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/relayhq/relay/graphdb"
)

// Node returns the node with the given id, or an error wrapping
// graphdb.ErrNotFound.
func (s *Store) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	if err := s.checkOpen(); err != nil {
		return graphdb.Node{}, err
	}
	var d nodeDoc
	if _, err := s.nodes.ReadDocument(ctx, docKey(string(id)), &d); err != nil {
		return graphdb.Node{}, mapErr(fmt.Sprintf("node %q", id), err)
	}
	return d.node(), nil
}

// Neighbors returns the edges of one kind at one end of id whose far end
// exists, sorted by (File, Line, From, To), at most limit (0: all).
func (s *Store) Neighbors(ctx context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	docs, err := queryAll[edgeDoc](ctx, s.db, neighborsQuery(id, kind, dir))
	if err != nil {
		return nil, mapErr(fmt.Sprintf("neighbors %s %s of %q", dir, kind, id), err)
	}
	out := make([]graphdb.Edge, len(docs))
	for i, d := range docs {
		out[i] = d.edge()
	}
	graphdb.SortEdges(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// FindSymbols returns the nodes matching q sorted by (File, StartLine,
// QName), at most q.Limit.
func (s *Store) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if q.Empty() {
		return nil, nil
	}
	docs, err := queryAll[nodeDoc](ctx, s.db, findSymbolsQuery(q))
	if err != nil {
		return nil, mapErr("find symbols", err)
	}
	out := make([]graphdb.Node, len(docs))
	for i, d := range docs {
		out[i] = d.node()
	}
	sortNodes(out)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// sortNodes orders nodes by (File, StartLine, QName, ID) in byte order.
func sortNodes(ns []graphdb.Node) {
	slices.SortFunc(ns, func(a, b graphdb.Node) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.StartLine, b.StartLine),
			cmp.Compare(a.QName, b.QName), cmp.Compare(a.ID, b.ID))
	})
}

// Files returns every owner record sorted by Path.
func (s *Store) Files(ctx context.Context) ([]graphdb.FileRecord, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	docs, err := queryAll[fileDoc](ctx, s.db, filesQuery())
	if err != nil {
		return nil, mapErr("list files", err)
	}
	out := make([]graphdb.FileRecord, len(docs))
	for i, d := range docs {
		out[i] = d.record()
	}
	slices.SortFunc(out, func(a, b graphdb.FileRecord) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}

// Stats counts files, nodes by kind and edges by kind (dangling edges
// included), all from one snapshot.
func (s *Store) Stats(ctx context.Context) (graphdb.Stats, error) {
	if err := s.checkOpen(); err != nil {
		return graphdb.Stats{}, err
	}
	type count struct {
		Kind  string `json:"kind"`
		Count int    `json:"count"`
	}
	var res struct {
		Files *int    `json:"files"`
		Nodes []count `json:"nodes"`
		Edges []count `json:"edges"`
	}
	if err := s.queryOne(ctx, statsQuery(), &res); err != nil {
		return graphdb.Stats{}, fmt.Errorf("stats: %w", err)
	}
	st := graphdb.Stats{Nodes: map[graphdb.NodeKind]int{}, Edges: map[graphdb.EdgeKind]int{}}
	if res.Files != nil {
		st.Files = *res.Files
	}
	for _, c := range res.Nodes {
		st.Nodes[graphdb.NodeKind(c.Kind)] += c.Count
	}
	for _, c := range res.Edges {
		st.Edges[graphdb.EdgeKind(c.Kind)] += c.Count
	}
	return st, nil
}

// Meta returns a value set with Tx.SetMeta, or "" and nil when unset.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	var d metaDoc
	if _, err := s.meta.ReadDocument(ctx, docKey(key), &d); err != nil {
		if isDocNotFound(err) {
			return "", nil
		}
		return "", mapErr(fmt.Sprintf("meta %q", key), err)
	}
	return d.Value, nil
}
