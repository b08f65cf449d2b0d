package embedded

import (
	"context"

	"github.com/relayhq/relay/graphdb"
)

// adjacency is the in-memory traversal index (see adjacency.go).
type adjacency struct{}

// Traverse walks breadth-first from start (graphdb.Traverser).
func (s *Store) Traverse(ctx context.Context, start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	return graphdb.TraverseNeighbors(ctx, s, start, kinds, dir, depth, limit)
}
