package graphdb

import "context"

// Scanner is an optional capability: a backend that can stream its whole
// graph implements it. Exporters (relay graph export) use it to write
// every node and edge without holding the graph in memory.
type Scanner interface {
	// ScanNodes calls fn with every stored node and its owner's path, in
	// an order the backend chooses (embedded: by node id), from one
	// snapshot where the backend has them. An error from fn stops the
	// scan and is returned.
	ScanNodes(ctx context.Context, fn func(owner string, n Node) error) error
	// ScanEdges calls fn with every stored edge whose two ends are stored
	// (dangling edges are hidden, as Neighbors hides them) and its owner's
	// path, in an order the backend chooses (embedded: owner by owner in
	// path order), from one snapshot where the backend has them. An error
	// from fn stops the scan and is returned.
	ScanEdges(ctx context.Context, fn func(owner string, e Edge) error) error
}
