package arango

import (
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// aql is one AQL query with its bind variables. Builders return it so the
// text can be checked against golden files without a server.
type aql struct {
	Text string
	Bind map[string]any
}

// keyword returns the AQL traversal direction; it cannot be a bind variable.
func keyword(dir graphdb.Direction) string {
	if dir == graphdb.Inbound {
		return "INBOUND"
	}
	return "OUTBOUND"
}

// ends returns the edge attributes naming the near and far end for dir.
func ends(dir graphdb.Direction) (near, far string) {
	if dir == graphdb.Inbound {
		return "_to", "_from"
	}
	return "_from", "_to"
}

// findSymbolsQuery selects the nodes matching q. Every set field adds one
// FILTER, each answerable by an index (primary key, qname, suffixes[*],
// name, loc, file). Sorting and Limit are applied by the caller in Go, in
// byte order, because AQL compares strings by ICU collation, which is not
// the order the contract promises.
func findSymbolsQuery(q graphdb.SymbolQuery) aql {
	var b strings.Builder
	bind := map[string]any{"@nodes": colNodes}
	b.WriteString("FOR n IN @@nodes\n")
	if q.ID != "" {
		b.WriteString("  FILTER n._key == @key\n")
		bind["key"] = docKey(string(q.ID))
	}
	if q.QName != "" {
		b.WriteString("  FILTER n.qname == @qname\n")
		bind["qname"] = q.QName
	}
	if q.Suffix != "" {
		b.WriteString("  FILTER @suffix IN n.suffixes[*]\n")
		bind["suffix"] = q.Suffix
	}
	if q.Name != "" {
		b.WriteString("  FILTER n.name == @name\n")
		bind["name"] = q.Name
	}
	if q.Loc != "" {
		b.WriteString("  FILTER n.loc == @loc\n")
		bind["loc"] = q.Loc
	}
	if q.File != "" {
		b.WriteString("  FILTER n.file == @file\n")
		bind["file"] = q.File
	}
	if len(q.Kinds) > 0 {
		b.WriteString("  FILTER n.kind IN @kinds\n")
		bind["kinds"] = q.Kinds
	}
	b.WriteString("  RETURN UNSET(n, \"_id\", \"_rev\", \"suffixes\")\n")
	return aql{Text: b.String(), Bind: bind}
}

// neighborsQuery returns the edges of one kind at one end of a node whose
// far end exists (dangling edges stay stored but are hidden).
func neighborsQuery(id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction) aql {
	near, far := ends(dir)
	text := "FOR e IN @@edges\n" +
		"  FILTER e." + near + " == @v AND e.kind == @kind\n" +
		"  FILTER DOCUMENT(e." + far + ") != null\n" +
		"  RETURN KEEP(e, \"from\", \"to\", \"kind\", \"file\", \"line\")\n"
	return aql{Text: text, Bind: map[string]any{"@edges": colEdges, "v": nodeHandle(id), "kind": kind}}
}

// traverseQuery collects, in one query (one snapshot), a superset of the
// nodes reachable from start within depth hops along kinds, and every edge
// of those kinds between them; bfs then derives the exact, deterministic
// answer (see the DESIGN note in traverse.go).
//
// The native traversal is breadth-first with global vertex uniqueness; the
// kind condition is written on the path (p.edges[*].kind ALL IN @kinds) so
// the optimizer applies it while expanding: a vertex first met over an edge
// of another kind must not count as visited. PRUNE stops at edges whose far
// node is missing. AQL returns nothing for a start vertex that does not
// exist, yet edges may still lead out of a missing node (another owner's
// dangling edges), so then the first hop is taken by hand and the traversal
// continues from each node it reaches.
func traverseQuery(start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth int) aql {
	kw := keyword(dir)
	near, far := ends(dir)
	text := "LET s = DOCUMENT(@start)\n" +
		"LET direct = (\n" +
		"  FOR v, e, p IN 1..@depth " + kw + " @start GRAPH @graph\n" +
		"    PRUNE v == null\n" +
		"    OPTIONS {order: \"bfs\", uniqueVertices: \"global\"}\n" +
		"    FILTER p.edges[*].kind ALL IN @kinds\n" +
		"    FILTER v != null\n" +
		"    RETURN v\n" +
		")\n" +
		"LET firsts = s != null ? [] : (\n" +
		"  FOR e IN @@edges\n" +
		"    FILTER e." + near + " == @start AND e.kind IN @kinds\n" +
		"    LET v = DOCUMENT(e." + far + ")\n" +
		"    FILTER v != null\n" +
		"    RETURN DISTINCT v\n" +
		")\n" +
		"LET beyond = (\n" +
		"  FOR f IN firsts\n" +
		"    FOR v, e, p IN 0..@rest " + kw + " f GRAPH @graph\n" +
		"      PRUNE v == null\n" +
		"      OPTIONS {order: \"bfs\", uniqueVertices: \"global\"}\n" +
		"      FILTER p.edges[*].kind ALL IN @kinds\n" +
		"      FILTER v != null\n" +
		"      RETURN v\n" +
		")\n" +
		"LET reached = UNION(direct, beyond)\n" +
		"LET ids = UNIQUE(APPEND([@start], reached[*]._id))\n" +
		"LET inside = ZIP(ids, ids)\n" +
		"LET links = (\n" +
		"  FOR id IN ids\n" +
		"    FOR e IN @@edges\n" +
		"      FILTER e." + near + " == id AND e.kind IN @kinds\n" +
		"      FILTER HAS(inside, e." + far + ")\n" +
		"      RETURN KEEP(e, \"from\", \"to\", \"kind\", \"file\", \"line\")\n" +
		")\n" +
		"RETURN {\n" +
		"  nodes: (FOR v IN reached RETURN UNSET(v, \"_id\", \"_rev\", \"suffixes\")),\n" +
		"  links: links\n" +
		"}\n"
	return aql{Text: text, Bind: map[string]any{
		"@edges": colEdges, "graph": graphName, "start": nodeHandle(start),
		"kinds": kinds, "depth": depth, "rest": depth - 1,
	}}
}

// filesQuery returns every owner record.
func filesQuery() aql {
	return aql{Text: "FOR f IN @@files\n  RETURN UNSET(f, \"_id\", \"_rev\")\n", Bind: map[string]any{"@files": colFiles}}
}

// statsQuery counts files, nodes by kind and edges by kind in one snapshot.
func statsQuery() aql {
	text := "LET fileCount = (FOR f IN @@files COLLECT WITH COUNT INTO c RETURN c)\n" +
		"LET nodeCounts = (FOR n IN @@nodes COLLECT k = n.kind WITH COUNT INTO c RETURN {kind: k, count: c})\n" +
		"LET edgeCounts = (FOR e IN @@edges COLLECT k = e.kind WITH COUNT INTO c RETURN {kind: k, count: c})\n" +
		"RETURN {files: FIRST(fileCount), nodes: nodeCounts, edges: edgeCounts}\n"
	return aql{Text: text, Bind: map[string]any{"@files": colFiles, "@nodes": colNodes, "@edges": colEdges}}
}

// ownersQuery reports which of the given node keys are owned by another
// owner than path: a ReplaceFile must not steal them.
func ownersQuery(path string, keys []string) aql {
	text := "FOR n IN @@nodes\n" +
		"  FILTER n._key IN @keys AND n.owner != @owner\n" +
		"  LIMIT 10\n" +
		"  RETURN {id: n.id, owner: n.owner}\n"
	return aql{Text: text, Bind: map[string]any{"@nodes": colNodes, "keys": keys, "owner": path}}
}

// removeOwnedQuery deletes everything owned by path from one collection.
func removeOwnedQuery(collection, path string) aql {
	text := "FOR d IN @@col\n" +
		"  FILTER d.owner == @owner\n" +
		"  REMOVE d IN @@col\n"
	return aql{Text: text, Bind: map[string]any{"@col": collection, "owner": path}}
}

// acquireLockQuery takes the writer lease when it is free, expired, or
// already ours, and returns the lease as it stands afterwards; the caller
// compares the holder with its own. Two writers racing on the same lease
// document get a write-write conflict, which the caller reports as locked.
func acquireLockQuery(holder string, now, expires int64) aql {
	text := "UPSERT {_key: @key}\n" +
		"  INSERT {_key: @key, holder: @holder, expires: @expires}\n" +
		"  UPDATE (OLD.holder == @holder || OLD.expires < @now) ? {holder: @holder, expires: @expires} : {}\n" +
		"  IN @@meta\n" +
		"  RETURN KEEP(NEW, \"_key\", \"holder\", \"expires\")\n"
	return aql{Text: text, Bind: map[string]any{"@meta": colMeta, "key": lockKey, "holder": holder, "now": now, "expires": expires}}
}

// renewLockQuery extends the lease if it is still ours; it returns nothing
// when the lease was lost.
func renewLockQuery(holder string, expires int64) aql {
	text := "FOR m IN @@meta\n" +
		"  FILTER m._key == @key AND m.holder == @holder\n" +
		"  UPDATE m WITH {expires: @expires} IN @@meta\n" +
		"  RETURN NEW.expires\n"
	return aql{Text: text, Bind: map[string]any{"@meta": colMeta, "key": lockKey, "holder": holder, "expires": expires}}
}

// releaseLockQuery removes the lease if it is still ours.
func releaseLockQuery(holder string) aql {
	text := "FOR m IN @@meta\n" +
		"  FILTER m._key == @key AND m.holder == @holder\n" +
		"  REMOVE m IN @@meta\n"
	return aql{Text: text, Bind: map[string]any{"@meta": colMeta, "key": lockKey, "holder": holder}}
}
