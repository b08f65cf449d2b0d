package arango

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/relayhq/relay/graphdb"
)

// Collection names an import must use so that the graph equals the one
// this package writes: vertices in ExportNodesCollection, edges in
// ExportEdgesCollection (an edge collection).
const (
	ExportNodesCollection = colNodes
	ExportEdgesCollection = colEdges
)

// ExportImport writes the selected graph of sc in the JSONL format
// arangoimport reads: one vertex document a line to nodes and one edge
// document a line to edges, exactly the documents this package's writer
// stores (the same _key, the hex SHA-1 of the node id; _from and _to as
// "nodes/<key>"; the id, owner and every field beside them; edge keys are
// left to the server, as the writer leaves them). Load them with
//
//	arangoimport --file nodes.jsonl --type jsonl --collection nodes --create-collection
//	arangoimport --file edges.jsonl --type jsonl --collection edges --create-collection --create-collection-type edge
//
// A store opened on that database then reads the same graph, once its
// schema stamp and indexes exist (arango.Open creates them).
func ExportImport(ctx context.Context, sc graphdb.Scanner, f graphdb.ExportFilter, nodes, edges io.Writer) (graphdb.ExportCounts, error) {
	nw, ew := bufio.NewWriterSize(nodes, 1<<16), bufio.NewWriterSize(edges, 1<<16)
	nenc, eenc := json.NewEncoder(nw), json.NewEncoder(ew)
	nenc.SetEscapeHTML(false)
	eenc.SetEscapeHTML(false)
	var c graphdb.ExportCounts
	err := graphdb.ScanFiltered(ctx, sc, f, func(owner string, n graphdb.Node) error {
		c.Nodes++
		return nenc.Encode(toNodeDoc(owner, n))
	}, func(owner string, e graphdb.Edge) error {
		c.Edges++
		return eenc.Encode(toEdgeDoc(owner, e))
	})
	if err != nil {
		return c, err
	}
	if err := nw.Flush(); err != nil {
		return c, err
	}
	return c, ew.Flush()
}
