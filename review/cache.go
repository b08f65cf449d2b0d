package review

import (
	"context"
	"fmt"
	"sync"

	"github.com/relayhq/relay/graphdb"
)

// cachedReader memoizes a graphdb.Reader for the length of one review. A
// large diff asks the same questions many times — interface dispatch looks
// up the same types and method names for many changed symbols, and a
// backend without native traversals walks overlapping callers through
// Neighbors — and each answer from the embedded store is a SQL query. Answers are shared between goroutines.
// A commit that lands during the review may be seen by some answers and not
// others; a review is advisory, so that is accepted.
type cachedReader struct {
	r graphdb.Reader

	mu    sync.Mutex
	nodes map[graphdb.NodeID]nodeAnswer
	nbrs  map[string][]graphdb.Edge
	syms  map[string][]graphdb.Node
	trav  map[string][]graphdb.Hop
}

type nodeAnswer struct {
	n   graphdb.Node
	err error
}

func newCachedReader(r graphdb.Reader) *cachedReader {
	return &cachedReader{r: r, nodes: map[graphdb.NodeID]nodeAnswer{}, nbrs: map[string][]graphdb.Edge{},
		syms: map[string][]graphdb.Node{}, trav: map[string][]graphdb.Hop{}}
}

func (c *cachedReader) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	c.mu.Lock()
	a, ok := c.nodes[id]
	c.mu.Unlock()
	if ok {
		return a.n, a.err
	}
	n, err := c.r.Node(ctx, id)
	if err != nil && ctx.Err() != nil {
		return n, err // never cache a cancellation
	}
	c.mu.Lock()
	c.nodes[id] = nodeAnswer{n, err}
	c.mu.Unlock()
	return n, err
}

func (c *cachedReader) Neighbors(ctx context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d", id, kind, dir, limit)
	c.mu.Lock()
	es, ok := c.nbrs[key]
	c.mu.Unlock()
	if ok {
		return es, nil
	}
	es, err := c.r.Neighbors(ctx, id, kind, dir, limit)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.nbrs[key] = es
	c.mu.Unlock()
	return es, nil
}

func (c *cachedReader) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	key := fmt.Sprintf("%#v", q)
	c.mu.Lock()
	ns, ok := c.syms[key]
	c.mu.Unlock()
	if ok {
		return ns, nil
	}
	ns, err := c.r.FindSymbols(ctx, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.syms[key] = ns
	c.mu.Unlock()
	return ns, nil
}

// Traverse keeps the backend's native traversal (graphdb.Traverse falls
// back to Neighbors otherwise), memoized like the rest.
func (c *cachedReader) Traverse(ctx context.Context, start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	key := fmt.Sprintf("%s\x00%v\x00%d\x00%d\x00%d", start, kinds, dir, depth, limit)
	c.mu.Lock()
	hs, ok := c.trav[key]
	c.mu.Unlock()
	if ok {
		return hs, nil
	}
	var err error
	if t, ok := c.r.(graphdb.Traverser); ok {
		hs, err = t.Traverse(ctx, start, kinds, dir, depth, limit)
	} else {
		hs, err = graphdb.TraverseNeighbors(ctx, c, start, kinds, dir, depth, limit)
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.trav[key] = hs
	c.mu.Unlock()
	return hs, nil
}

// TraverseMulti keeps the backend's native multi-start traversal (one
// call per review, from the blast radius, so it is not memoized).
func (c *cachedReader) TraverseMulti(ctx context.Context, starts []graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	if t, ok := c.r.(graphdb.MultiTraverser); ok {
		return t.TraverseMulti(ctx, starts, kinds, dir, depth, limit)
	}
	return graphdb.TraverseMultiNeighbors(ctx, c, starts, kinds, dir, depth, limit)
}

func (c *cachedReader) Files(ctx context.Context) ([]graphdb.FileRecord, error) {
	return c.r.Files(ctx)
}

func (c *cachedReader) Stats(ctx context.Context) (graphdb.Stats, error) { return c.r.Stats(ctx) }

func (c *cachedReader) Meta(ctx context.Context, key string) (string, error) {
	return c.r.Meta(ctx, key)
}
