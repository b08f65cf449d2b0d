package index

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/relayhq/relay/graphdb"
)

// memStore is a small in-memory graphdb.Store for the indexer's tests. It
// keeps the contract's rules that matter here: one owner per node id,
// nothing visible before Commit, Rollback restores.
type memStore struct {
	mu    sync.RWMutex
	state *memState
}

type memState struct {
	files map[string]graphdb.FileRecord
	nodes map[graphdb.NodeID]graphdb.Node
	owner map[graphdb.NodeID]string
	edges map[string][]graphdb.Edge // by owner
	meta  map[string]string
}

func newMemStore() *memStore {
	return &memStore{state: &memState{
		files: map[string]graphdb.FileRecord{}, nodes: map[graphdb.NodeID]graphdb.Node{},
		owner: map[graphdb.NodeID]string{}, edges: map[string][]graphdb.Edge{}, meta: map[string]string{},
	}}
}

func (s *memState) clone() *memState {
	c := &memState{
		files: make(map[string]graphdb.FileRecord, len(s.files)), nodes: make(map[graphdb.NodeID]graphdb.Node, len(s.nodes)),
		owner: make(map[graphdb.NodeID]string, len(s.owner)), edges: make(map[string][]graphdb.Edge, len(s.edges)), meta: map[string]string{},
	}
	for k, v := range s.files {
		c.files[k] = v
	}
	for k, v := range s.nodes {
		c.nodes[k] = v
	}
	for k, v := range s.owner {
		c.owner[k] = v
	}
	for k, v := range s.edges {
		c.edges[k] = v
	}
	for k, v := range s.meta {
		c.meta[k] = v
	}
	return c
}

func (m *memStore) snap() *memState {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.state
}

func (m *memStore) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	n, ok := m.snap().nodes[id]
	if !ok {
		return graphdb.Node{}, fmt.Errorf("node %s: %w", id, graphdb.ErrNotFound)
	}
	return n, nil
}

func (m *memStore) Neighbors(ctx context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	s := m.snap()
	var out []graphdb.Edge
	for _, es := range s.edges {
		for _, e := range es {
			if e.Kind != kind {
				continue
			}
			near, far := e.From, e.To
			if dir == graphdb.Inbound {
				near, far = e.To, e.From
			}
			if _, ok := s.nodes[far]; near == id && ok {
				out = append(out, e)
			}
		}
	}
	graphdb.SortEdges(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// FindSymbols supports the selectors the tests use: ID and File.
func (m *memStore) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	s := m.snap()
	var out []graphdb.Node
	for _, n := range s.nodes {
		if (q.ID == "" || n.ID == q.ID) && (q.File == "" || n.File == q.File) && !q.Empty() {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (m *memStore) Files(ctx context.Context) ([]graphdb.FileRecord, error) {
	s := m.snap()
	out := make([]graphdb.FileRecord, 0, len(s.files))
	for _, f := range s.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (m *memStore) Stats(ctx context.Context) (graphdb.Stats, error) {
	s := m.snap()
	st := graphdb.Stats{Files: len(s.files), Nodes: map[graphdb.NodeKind]int{}, Edges: map[graphdb.EdgeKind]int{}}
	for _, n := range s.nodes {
		st.Nodes[n.Kind]++
	}
	for _, es := range s.edges {
		for _, e := range es {
			st.Edges[e.Kind]++
		}
	}
	return st, nil
}

func (m *memStore) Meta(ctx context.Context, key string) (string, error) {
	return m.snap().meta[key], nil
}

func (m *memStore) Begin(ctx context.Context) (graphdb.Tx, error) {
	return &memTx{m: m, s: m.snap().clone()}, nil
}

func (m *memStore) Close() error { return nil }

type memTx struct {
	m    *memStore
	s    *memState
	done bool
}

func (t *memTx) DeleteFile(ctx context.Context, path string) error {
	delete(t.s.files, path)
	delete(t.s.edges, path)
	for id, o := range t.s.owner {
		if o == path {
			delete(t.s.owner, id)
			delete(t.s.nodes, id)
		}
	}
	return nil
}

func (t *memTx) ReplaceFile(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	if err := t.DeleteFile(ctx, f.Path); err != nil {
		return err
	}
	for _, n := range nodes {
		if o, ok := t.s.owner[n.ID]; ok {
			return fmt.Errorf("node %s of %s is owned by %s", n.ID, f.Path, o)
		}
		t.s.owner[n.ID] = f.Path
		t.s.nodes[n.ID] = n
	}
	t.s.files[f.Path] = f
	t.s.edges[f.Path] = append([]graphdb.Edge(nil), edges...)
	return nil
}

func (t *memTx) SetMeta(ctx context.Context, key, value string) error {
	t.s.meta[key] = value
	return nil
}

func (t *memTx) Commit() error {
	if t.done {
		return fmt.Errorf("transaction already finished")
	}
	t.done = true
	t.m.mu.Lock()
	t.m.state = t.s
	t.m.mu.Unlock()
	return nil
}

func (t *memTx) Rollback() error {
	t.done = true
	return nil
}

// ownedBy returns the nodes an owner holds (the Reader interface cannot
// select by owner; dumps of pseudo-owners need it).
func (m *memStore) ownedBy(owner string) []graphdb.Node {
	s := m.snap()
	var out []graphdb.Node
	for id, o := range s.owner {
		if o == owner {
			out = append(out, s.nodes[id])
		}
	}
	return out
}
