// Package memstore is an in-memory graphdb.Store: the whole graph in maps,
// nothing on disk. Tests of every package use it where they need a graph
// without SQLite (index, retrieve, review, eval, tools, agent), and it
// passes the graphdb/storetest conformance suite like the real backends,
// so a test cannot lean on behaviour a real store lacks.
//
// DESIGN: a committed graph is an immutable state; readers take the
// current one under a read lock and never see half a commit. Begin copies
// the state (O(graph), fine at test sizes), the Tx edits its copy, and
// Commit swaps it in. One Tx may be open at a time (a second Begin fails
// with graphdb.ErrLocked); calls after Close fail with graphdb.ErrClosed.
// Adjacency for Neighbors is built once per state, on first use.
package memstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/relayhq/relay/graphdb"
)

// Store is an in-memory graphdb.Store. The zero value is not usable; call New.
type Store struct {
	mu     sync.RWMutex
	state  *state
	inTx   bool
	closed bool
}

// New returns an empty store.
func New() *Store { return &Store{state: newState()} }

type state struct {
	files map[string]graphdb.FileRecord
	nodes map[graphdb.NodeID]graphdb.Node
	owner map[graphdb.NodeID]string
	edges map[string][]graphdb.Edge // by owner
	meta  map[string]string

	adjOnce sync.Once
	out     map[adjKey][]graphdb.Edge
	in      map[adjKey][]graphdb.Edge
}

type adjKey struct {
	id   graphdb.NodeID
	kind graphdb.EdgeKind
}

func newState() *state {
	return &state{files: map[string]graphdb.FileRecord{}, nodes: map[graphdb.NodeID]graphdb.Node{},
		owner: map[graphdb.NodeID]string{}, edges: map[string][]graphdb.Edge{}, meta: map[string]string{}}
}

func (s *state) clone() *state {
	return &state{files: maps.Clone(s.files), nodes: maps.Clone(s.nodes), owner: maps.Clone(s.owner),
		edges: maps.Clone(s.edges), meta: maps.Clone(s.meta)}
}

// adjacency indexes every stored edge by its ends, sorted as Neighbors
// returns them.
func (s *state) adjacency() {
	s.adjOnce.Do(func() {
		s.out, s.in = map[adjKey][]graphdb.Edge{}, map[adjKey][]graphdb.Edge{}
		for _, es := range s.edges {
			for _, e := range es {
				s.out[adjKey{e.From, e.Kind}] = append(s.out[adjKey{e.From, e.Kind}], e)
				s.in[adjKey{e.To, e.Kind}] = append(s.in[adjKey{e.To, e.Kind}], e)
			}
		}
		for _, es := range s.out {
			graphdb.SortEdges(es)
		}
		for _, es := range s.in {
			graphdb.SortEdges(es)
		}
	})
}

// snap returns the committed state, or ErrClosed.
func (m *Store) snap() (*state, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, graphdb.ErrClosed
	}
	return m.state, nil
}

// Node returns the node with the given id.
func (m *Store) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	s, err := m.snap()
	if err != nil {
		return graphdb.Node{}, err
	}
	n, ok := s.nodes[id]
	if !ok {
		return graphdb.Node{}, fmt.Errorf("node %s: %w", id, graphdb.ErrNotFound)
	}
	return n, nil
}

// Neighbors returns the edges of kind leaving (Outbound) or entering
// (Inbound) id whose far end exists, sorted by (File, Line, From, To).
func (m *Store) Neighbors(ctx context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	s, err := m.snap()
	if err != nil {
		return nil, err
	}
	s.adjacency()
	all := s.out[adjKey{id, kind}]
	if dir == graphdb.Inbound {
		all = s.in[adjKey{id, kind}]
	}
	var out []graphdb.Edge
	for _, e := range all {
		far := e.To
		if dir == graphdb.Inbound {
			far = e.From
		}
		if _, ok := s.nodes[far]; !ok {
			continue // dangling: the contract hides it
		}
		out = append(out, e)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// FindSymbols returns the nodes matching every set field of q, sorted by
// (File, StartLine, QName).
func (m *Store) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	s, err := m.snap()
	if err != nil {
		return nil, err
	}
	if q.Empty() {
		return nil, nil
	}
	var out []graphdb.Node
	for _, n := range s.nodes {
		if matches(n, q) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b graphdb.Node) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.StartLine, b.StartLine), strings.Compare(a.QName, b.QName),
			strings.Compare(string(a.ID), string(b.ID)))
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

func matches(n graphdb.Node, q graphdb.SymbolQuery) bool {
	switch {
	case q.ID != "" && n.ID != q.ID,
		q.QName != "" && n.QName != q.QName,
		q.Suffix != "" && n.QName != q.Suffix && !strings.HasSuffix(n.QName, "."+q.Suffix) && !strings.HasSuffix(n.QName, "/"+q.Suffix),
		q.Name != "" && n.Name != q.Name,
		q.Loc != "" && n.Loc != q.Loc,
		q.File != "" && n.File != q.File,
		len(q.Kinds) > 0 && !slices.Contains(q.Kinds, n.Kind):
		return false
	}
	return true
}

// Files returns every owner record, sorted by Path.
func (m *Store) Files(ctx context.Context) ([]graphdb.FileRecord, error) {
	s, err := m.snap()
	if err != nil {
		return nil, err
	}
	out := slices.Collect(maps.Values(s.files))
	slices.SortFunc(out, func(a, b graphdb.FileRecord) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// Stats counts owners, nodes by kind and stored edges by kind (dangling
// ones included).
func (m *Store) Stats(ctx context.Context) (graphdb.Stats, error) {
	s, err := m.snap()
	if err != nil {
		return graphdb.Stats{}, err
	}
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

// Meta returns a value set with Tx.SetMeta, or "".
func (m *Store) Meta(ctx context.Context, key string) (string, error) {
	s, err := m.snap()
	if err != nil {
		return "", err
	}
	return s.meta[key], nil
}

// Owned returns the nodes an owner holds, sorted by id: the Reader
// interface selects by file, not by owner, and pseudo-owners ("@go/…")
// hold nodes of other files.
func (m *Store) Owned(owner string) []graphdb.Node {
	s, err := m.snap()
	if err != nil {
		return nil
	}
	var out []graphdb.Node
	for id, o := range s.owner {
		if o == owner {
			out = append(out, s.nodes[id])
		}
	}
	slices.SortFunc(out, func(a, b graphdb.Node) int { return strings.Compare(string(a.ID), string(b.ID)) })
	return out
}

// Begin starts the one write transaction; a second one while it is open
// fails with graphdb.ErrLocked.
func (m *Store) Begin(ctx context.Context) (graphdb.Tx, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return nil, graphdb.ErrClosed
	case m.inTx:
		return nil, fmt.Errorf("begin: a transaction is open: %w", graphdb.ErrLocked)
	}
	m.inTx = true
	return &tx{m: m, s: m.state.clone()}, nil
}

// Close makes every later call fail with graphdb.ErrClosed.
func (m *Store) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

var errTxDone = errors.New("transaction already committed or rolled back")

type tx struct {
	m    *Store
	s    *state
	done bool
}

func (t *tx) DeleteFile(ctx context.Context, path string) error {
	if t.done {
		return errTxDone
	}
	t.deleteOwner(path)
	return nil
}

func (t *tx) deleteOwner(path string) {
	delete(t.s.files, path)
	delete(t.s.edges, path)
	for id, o := range t.s.owner {
		if o == path {
			delete(t.s.owner, id)
			delete(t.s.nodes, id)
		}
	}
}

func (t *tx) ReplaceFile(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	if t.done {
		return errTxDone
	}
	if err := graphdb.ValidateReplace(f, nodes, edges); err != nil {
		return err
	}
	for _, n := range nodes {
		if o, ok := t.s.owner[n.ID]; ok && o != f.Path {
			return fmt.Errorf("replace file %s: node %s is owned by %s", f.Path, n.ID, o)
		}
	}
	t.deleteOwner(f.Path)
	for _, n := range nodes {
		t.s.owner[n.ID] = f.Path
		t.s.nodes[n.ID] = n
	}
	f.Errors = slices.Clone(f.Errors)
	t.s.files[f.Path] = f
	t.s.edges[f.Path] = slices.Clone(edges)
	return nil
}

func (t *tx) SetMeta(ctx context.Context, key, value string) error {
	if t.done {
		return errTxDone
	}
	t.s.meta[key] = value
	return nil
}

func (t *tx) Commit() error {
	if t.done {
		return errTxDone
	}
	t.done = true
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	t.m.inTx = false
	if t.m.closed {
		return graphdb.ErrClosed
	}
	t.m.state = t.s
	return nil
}

func (t *tx) Rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	t.m.mu.Lock()
	t.m.inTx = false
	t.m.mu.Unlock()
	return nil
}
