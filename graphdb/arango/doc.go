// Package arango is relay's ArangoDB graph store: the graphdb.Store
// contract on a server, for graphs that outgrow one machine or are shared
// by many bots. It owns the database layout, the AQL queries, the mapping
// of relay ids to document keys, and the writer lease.
//
// # Use
//
//	st, err := arango.Open(ctx, "arangodb://root:pass@localhost:8529/myrepo", arango.Options{})
//
// arangodbs:// selects TLS. The user defaults to root, the port to 8529 and
// the database to "relay"; a password missing from the URL is taken from
// Options.Password (the CLI passes RELAY_ARANGO_PASSWORD). On the CLI:
// `relay --store arangodb://… index`. examples/arangodb/docker-compose.yml
// starts a server.
//
// # Layout
//
// Open creates what is missing (Options.ReadOnly creates nothing): the
// database; document collections nodes, files and meta; the edge
// collection edges; the named graph "code" (edges: nodes → nodes);
// persistent indexes on nodes (qname, name, loc, (file, start_line),
// owner, kind, suffixes[*]) and on edges (owner, kind, and the
// vertex-centric (_from, kind) and (_to, kind)); and a schema stamp in
// meta. Node ids contain characters _key forbids, so every key is the hex
// SHA-1 of the id (of the path for files, of the key for meta); the id
// itself is a field. Edges keep from/to ids beside _from/_to and are
// written through the collection API, so an edge may point at a node no
// owner declares: it is stored and counted, and reads hide it, as the
// contract requires. Every node and edge carries its owner, which is what
// ReplaceFile and DeleteFile remove by.
//
// # Reads
//
// Each Reader method is one request: Node and Meta read a document by
// key, the others run one AQL query, so on a single server each sees one
// RocksDB snapshot. Results are sorted in Go (byte order), not by AQL's
// SORT, whose string order is ICU collation. Traverse is native: one AQL
// query with a breadth-first, globally vertex-unique traversal finds the
// region, and the exact graphdb.TraverseNeighbors answer (which node is
// reached through which edge) is replayed over it in memory (traverse.go).
//
// ScanNodes and ScanEdges (graphdb.Scanner, what relay graph export
// reads) stream one AQL cursor each (stream: true), in the server's order.
// ExportImport writes the documents this package stores as arangoimport
// JSONL, so a graph can be loaded without the relay writer.
//
// # Writes and their limits
//
// A Tx is an ArangoDB stream transaction over nodes, edges, files and meta;
// nothing it writes is visible before Commit. ReplaceFile checks that no
// node id belongs to another owner, removes the owner's nodes and edges
// with AQL, and inserts the new ones in batches (Options.BatchSize) with
// the multi-document API. Limits to know on huge repositories:
//
//   - Size: a stream transaction holds all its writes in server memory, up
//     to --transaction.streaming-max-transaction-size (128 MiB by default;
//     Options.MaxTransactionSize asks for less). A first index of a very
//     large repository may exceed it and fail at the write that crosses it;
//     raise the server limit.
//   - Idle time: the server aborts a stream transaction idle for
//     --transaction.streaming-idle-timeout (60 s by default). The Tx touches
//     itself every LockTTL/3 while open, so a long parse between writes
//     does not lose it.
//   - Cluster: a commit is atomic per shard, and readers on a cluster get no
//     global snapshot, so a reader may see part of a commit that spans
//     shards. A single server (or a OneShard database) has neither gap.
//
// One writer per database: Begin takes a lease document
// (meta/relay-writer-lock: holder, expiry) and fails with an error wrapping
// graphdb.ErrLocked naming the holder when another writer has it. An open
// Tx renews the lease every LockTTL/3 (Options.LockTTL, 1 minute by
// default) and checks it once more before committing; a crashed writer's
// lease lapses after LockTTL. Writers' clocks must agree to within a
// fraction of LockTTL.
//
// # What is verified
//
// The package compiles against github.com/arangodb/go-driver/v2 and its
// unit tests run without a server: URL parsing, option validation, key and
// suffix mapping, document round trips, driver-error mapping, the AQL text
// (golden files under testdata/, rewritten with -update), and the
// traversal replay against graphdb.TraverseNeighbors on random graphs. The
// conformance suite (graphdb/storetest) and the lease tests run only when
// RELAY_ARANGO_URL names a server (each test in a fresh database it drops
// afterwards); without it they skip. Behaviour that only a server shows
// (the optimizer applying the path filter during the traversal, stream
// transaction isolation) is covered by that suite, not by the unit tests.
package arango
