package graphdb

import "context"

// SymbolQuery selects nodes. Set fields are ANDed; an empty query matches
// nothing. Results are sorted by (File, StartLine, QName) and capped by Limit
// (0 means no cap).
type SymbolQuery struct {
	ID     NodeID     // exact id
	QName  string     // exact qualified name
	Suffix string     // qname equals Suffix or ends with "."+Suffix or "/"+Suffix
	Name   string     // exact short name
	Loc    string     // exact location name ("path/file.go:Recv.Method")
	File   string     // every node declared in this file
	Kinds  []NodeKind // restrict to these kinds
	Limit  int
}

// Empty reports whether no selecting field is set.
func (q SymbolQuery) Empty() bool {
	return q.ID == "" && q.QName == "" && q.Suffix == "" && q.Name == "" && q.Loc == "" && q.File == ""
}

// Reader answers queries. Implementations must be safe for concurrent use
// and must see a consistent snapshot per call: never half of a commit.
type Reader interface {
	// Node returns the node with the given id, or an error wrapping ErrNotFound.
	Node(ctx context.Context, id NodeID) (Node, error)
	// Neighbors returns the edges of the given kind that leave (Outbound) or
	// enter (Inbound) id, sorted by (File, Line, From, To), at most limit
	// (0: all). Edges whose far end does not exist are not returned.
	Neighbors(ctx context.Context, id NodeID, kind EdgeKind, dir Direction, limit int) ([]Edge, error)
	// FindSymbols returns the nodes matching q.
	FindSymbols(ctx context.Context, q SymbolQuery) ([]Node, error)
	// Files returns every owner record, sorted by Path.
	Files(ctx context.Context) ([]FileRecord, error)
	// Stats counts files, nodes by kind and edges by kind.
	Stats(ctx context.Context) (Stats, error)
	// Meta returns a value set with Tx.SetMeta, or "" and nil when unset.
	Meta(ctx context.Context, key string) (string, error)
}

// Tx is one write transaction. Nothing it writes is visible to readers until
// Commit returns nil; after Rollback, or a crash at any point before Commit,
// the store holds exactly what it held before Begin.
type Tx interface {
	// ReplaceFile deletes every node and edge owned by f.Path and stores f,
	// nodes and edges in their place (all owned by f.Path). Node ids must be
	// unique across owners; writing an id owned by another file is an error.
	ReplaceFile(ctx context.Context, f FileRecord, nodes []Node, edges []Edge) error
	// DeleteFile deletes the owner and everything it owns. Deleting an owner
	// that does not exist is not an error.
	DeleteFile(ctx context.Context, path string) error
	// SetMeta stores a small string value (index settings, versions).
	SetMeta(ctx context.Context, key, value string) error
	Commit() error
	Rollback() error
}

// Writer starts write transactions. At most one Tx is open per store at a
// time; across processes a second writer gets an error wrapping ErrLocked.
type Writer interface {
	Begin(ctx context.Context) (Tx, error)
}

// Store is a graph backend.
type Store interface {
	Reader
	Writer
	Close() error
}

// Hop is one node reached by a traversal.
type Hop struct {
	Node  Node
	Depth int    // 1 for direct neighbours
	Via   NodeID // the node at Depth-1 it was reached from
	Edge  Edge   // the edge that reached it (first by (File, Line))
}

// Traverser is an optional capability: a backend that can walk many hops
// natively (in-memory adjacency, AQL) implements it; Traverse in this package
// falls back to repeated Neighbors calls otherwise.
type Traverser interface {
	// Traverse walks breadth-first from start along edges of the given kinds
	// in direction dir, up to depth hops, returning each reached node once
	// (at its smallest depth), at most limit hops (0: all). start itself is
	// not returned.
	Traverse(ctx context.Context, start NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error)
}

// MultiTraverser is an optional capability: a backend that can walk from
// many starts at once natively implements it; TraverseMulti in this package
// falls back to repeated Neighbors calls otherwise. Its answer must equal
// TraverseMultiNeighbors' exactly (the conformance suite checks).
type MultiTraverser interface {
	// TraverseMulti walks breadth-first from all of starts together along
	// edges of the given kinds in direction dir, up to depth hops: each
	// reached node is returned once, at its smallest distance from any
	// start, with Via its breadth-first parent (of equally near parents,
	// the one expanded first: starts in the given order, then hops in the
	// order they were returned), at most limit hops (0: all). Starts are
	// never returned, duplicates count once, and a start nothing mentions
	// reaches nothing.
	TraverseMulti(ctx context.Context, starts []NodeID, kinds []EdgeKind, dir Direction, depth, limit int) ([]Hop, error)
}
