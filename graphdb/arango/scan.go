package arango

import (
	"context"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"

	"github.com/relayhq/relay/graphdb"
)

// scanNodesQuery streams every node document with its owner.
func scanNodesQuery() aql {
	return aql{Text: "FOR n IN @@nodes\n  RETURN UNSET(n, \"_id\", \"_rev\", \"suffixes\")\n", Bind: map[string]any{"@nodes": colNodes}}
}

// scanEdgesQuery streams every edge whose two ends exist, with its owner
// (dangling edges stay stored but are hidden, as Neighbors hides them).
func scanEdgesQuery() aql {
	return aql{Text: "FOR e IN @@edges\n" +
		"  FILTER DOCUMENT(e._from) != null AND DOCUMENT(e._to) != null\n" +
		"  RETURN KEEP(e, \"from\", \"to\", \"kind\", \"file\", \"line\", \"owner\")\n",
		Bind: map[string]any{"@edges": colEdges}}
}

// ScanNodes implements graphdb.Scanner with one streaming cursor (one
// snapshot on a single server), in the server's order.
func (s *Store) ScanNodes(ctx context.Context, fn func(owner string, n graphdb.Node) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return mapErr("scan nodes", queryEach(ctx, s.db, scanNodesQuery(), func(d nodeDoc) error { return fn(d.Owner, d.node()) }))
}

// ScanEdges implements graphdb.Scanner with one streaming cursor, in the
// server's order.
func (s *Store) ScanEdges(ctx context.Context, fn func(owner string, e graphdb.Edge) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return mapErr("scan edges", queryEach(ctx, s.db, scanEdgesQuery(), func(d edgeDoc) error { return fn(d.Owner, d.edge()) }))
}

// queryEach runs a query and calls fn with each result as the cursor
// delivers it, holding one batch at a time.
func queryEach[T any](ctx context.Context, q arangodb.DatabaseQuery, a aql, fn func(T) error) error {
	cur, err := q.Query(ctx, a.Text, &arangodb.QueryOptions{BindVars: a.Bind, BatchSize: 1000, Options: arangodb.QuerySubOptions{Stream: true}})
	if err != nil {
		return err
	}
	defer cur.Close()
	for cur.HasMore() {
		var v T
		if _, err := cur.ReadDocument(ctx, &v); err != nil {
			if shared.IsNoMoreDocuments(err) {
				break
			}
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}
