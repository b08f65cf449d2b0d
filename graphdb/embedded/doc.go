// Package embedded is relay's default graph store: one directory (by default
// <repo>/.relay, see DefaultDir) holding a SQLite database written through
// the pure-Go modernc.org/sqlite driver, plus adjacency snapshot files that
// are only a cache. No server; one writer and any number of concurrent
// readers, in this process and in others; crash-safe.
//
// Use:
//
//	st, err := embedded.Open(embedded.DefaultDir(root), embedded.Options{Logger: log})
//	tx, err := st.Begin(ctx)             // ErrLocked if another process writes
//	err = tx.ReplaceFile(ctx, f, nodes, edges)
//	err = tx.Commit()                    // all or nothing
//	err = st.Warm(ctx)                   // optional: prebuild the adjacency snapshot
//	rs, err := graphdb.Query(ctx, st, graphdb.OpCallers, id, 3, 0)
//
// Open with Options{ReadOnly: true} for queries only: it never creates the
// directory or writes to it, and a missing or never-committed store is a
// *graphdb.NoIndexError (it wraps graphdb.ErrNotFound). A writable open of
// a directory that cannot be written fails with a *ReadOnlyError
// (ErrReadOnly); a damaged store with a *DamageError (graphdb.ErrCorrupt,
// see Integrity); a store this user's relay did not write with a
// *ForeignError (ErrForeign). Messages say what is wrong, never what to
// run: the command line, the bot and an MCP client's user can each do
// different things, and internal/advice says which.
//
// Files in the directory: graph.db (+ -wal, -shm) the durable graph;
// graph.seal its checksum and MAC; write.lock the writer lock (flock,
// holds the writer's pid); adjacency.bin, adjacency.out.bin,
// adjacency.in.bin the snapshot cache; .gitignore ("*") so the index is
// never committed or searched by rg/fd; graph.db.corrupt-<time> a damaged
// graph, graph.db.foreign-<time> a foreign one (see Ownership), set aside
// by a rebuild. The directory and these files must not be symbolic links
// (ErrLink): nothing is read or written through one.
//
// # DESIGN
//
// Durable source of truth: SQLite in WAL mode. Readers never block on the
// writer and see the last commit; a transaction is one BEGIN IMMEDIATE …
// COMMIT on a dedicated connection, so a kill -9 at any point (mid-write,
// before or during COMMIT) leaves the previous graph whole — SQLite rolls
// the torn WAL tail back on the next open. synchronous=NORMAL: a power loss
// may drop the last commit but never corrupts the file. TestCrashSafety
// re-executes the test binary as a writer, SIGKILLs it at each of those
// points and checks the store holds exactly the old graph (or, if the kill
// lost the race to COMMIT, exactly the new one).
//
// Writer lock: an exclusive non-blocking flock on write.lock taken by Begin
// and dropped on Commit/Rollback/Close (or by the kernel when the process
// dies). A second writer gets an error wrapping graphdb.ErrLocked naming
// the holder's pid.
//
// Tables: nodes (one row per node, rowid = the node's interned id), syms
// (node id text ↔ integer sid; sids are never reused), files (owners),
// edgesets (one packed blob per owner holding all its edges, see
// edgeset.go), meta, sys (the generation counter). Node lookups and symbol
// queries are indexed SQL: id via syms, exact qname and dotted suffix via an
// index on the byte-reversed qname (suffix "Server.Serve" = prefix ranges
// of reversed "Serve.revreS." and "…/"), name and file via indexes that also
// carry (file, start_line) so results come out sorted and LIMIT stops early.
//
// Edges are not rows. Measured on the std-sized synthetic graph (10k files,
// 110k nodes, 510k edges; BenchmarkWrite) and on a real std graph (7.5k
// files, 105k nodes, 526k edges): with one row per edge and B-tree indexes
// on (src, kind) and (dst, kind), a full write cost 5.2 CPU-seconds, over
// half of it inserting edge index entries in random key order; with one
// blob per owner it costs 2.3–2.5 CPU-seconds. Per-owner blobs fit the only
// way edges are ever written (ReplaceFile replaces all of an owner's edges
// at once) and cost nothing to delete.
//
// Every edge query (Neighbors, Traverse, TraverseMulti) is answered by an
// in-memory adjacency: per direction a CSR array (offsets by sid, 12-byte
// entries: far sid, kind, file rank, line) with each node's entries sorted
// by (kind, file, line, far id). File names and ids are replaced by their
// ranks in sorted order, so a multi-kind merge reproduces the order of
// graphdb.TraverseNeighbors and graphdb.TraverseMultiNeighbors exactly
// (TestTraverseAgreesOnRandomGraphs and
// the conformance suite check it edge for edge, with cycles, duplicates
// and dangling edges). (The project measured a recursive CTE over an edge
// table 20–40× slower at hub nodes.)
//
// The adjacency belongs to one generation (sys.generation, bumped by every
// commit). Each query reads the generation; a stale adjacency is replaced
// from the snapshot files when they carry that generation, and otherwise
// rebuilt from nodes + edgesets inside a read transaction (0.2–0.3 s at std
// size; a one-file incremental commit itself takes ~2 ms, see
// BenchmarkIncremental) and saved. Commits that only SetMeta keep the
// generation. Snapshots are checksummed and written by rename; a
// damaged, stale or foreign file is ignored and rebuilt. They are split into
// a shared file (node existence, id ranks, file names) and one file per
// direction, so a process that only asks for callers reads ~7 MB at std
// size instead of everything: opening the store and answering callers
// depth 1 in a fresh process costs a few milliseconds (BenchmarkOpenQuery),
// and no process ever loads 500k edges through SQL just to start. Call
// Warm after indexing so the first query does not pay the rebuild.
//
// Consistency: a traversal reads the generation, walks the adjacency and
// fetches the reached nodes inside one read transaction, so it never sees
// half of a commit. Neighbors needs no transaction: an adjacency is an
// immutable picture of one generation, and a sid's id never changes.
// Dangling edges (to ids no stored node has) are kept — another owner may
// declare the node later — and hidden by a node-existence bitset.
//
// # Integrity
//
// SQLite checks its b-tree structure as it reads but not the bytes in it:
// a flipped bit in a name, an id or an index key is answered from without
// complaint (the probe behind this design: 300 random bit flips in
// graph.db changed 6–16 of 300 answers, exit status 0). Three layers make
// damage an error instead:
//
//   - Record checksums: a node row (all of its columns, nodecodec.go), an
//     id (syms.crc), a file record (files.crc), an edge set and its counts
//     (edgeset.go) each carry a CRC-32C verified on every read that answers
//     from them; rows reached through an index must also match the query,
//     traversals must find every node and id they reach, and building the
//     adjacency checks that ids come strictly ordered and none is missing.
//   - The seal (seal.go): the writer, when it closes, checkpoints the log
//     into graph.db and writes the CRC-32 of every MiB to graph.seal;
//     every open verifies it (5–7 ms for the 55 MB graph.db of the
//     std-sized synthetic graph: memory-mapped, hashed in parallel), so a
//     store at rest is checked byte for byte, index pages included, before
//     any answer. Begin replaces it with an open seal first.
//   - While the seal is open or absent (a writer is at work, or died), a writable open
//     runs integrity_check and verifies every record (~1 s at std size)
//     and a read-only one quick_check when graph.db is at most 16 MiB.
//
// The first failed check marks the Store damaged: every later call returns
// the same *DamageError wrapping graphdb.ErrCorrupt ("the index at DIR is
// damaged (…)"), with quick_check's findings when
// SQLite reported the corruption. A writable Open with Rebuild moves a
// damaged graph aside (SetAside) and starts a new one; `relay index` does
// so at open or when damage surfaces mid-run. TestDamagedIndex (cmd/relay)
// flips 300 bits in sealed and unsealed stores and requires every query to
// answer exactly as before or fail. What an unsealed store cannot promise:
// an index entry whose key was damaged hides its row from lookups through
// that index (a symbol is "not found", a name lookup misses one candidate)
// until the next writable open's integrity_check.
//
// Read-only media: a read-only store opens graph.db with mode=ro, so
// SQLite never writes it; when the directory cannot be written (access(2)
// says so, which a read-only file system does even to root) and the log is
// empty it adds immutable=1 — no -shm, no locks — and an adjacency built
// there is not saved. A non-empty log on read-only media is read through
// the existing -shm (SQLite's read-only WAL support). TestReadOnlyMount
// checks both on a real read-only bind mount.
//
// Full disks: a read-only open in a writable directory uses mode=ro, and
// SQLite then needs room for the -shm index; when there is none
// (SQLITE_IOERR_SHMSIZE, "disk I/O error") and the log is empty, the open
// is retried immutable, so readers keep answering from an intact store on
// a full disk. Readers keep temporary tables in memory (temp_store).
// TestFullDiskReaders checks it on a real full tmpfs.
//
// # Ownership
//
// A store that came with the repository (committed, copied in) must not
// be believed: its records' content hashes match the files, so an
// incremental index would keep a forged graph. With Options.Key (a
// per-user secret kept outside every repository; `relay` keeps it in the
// user config folder) every seal carries an HMAC-SHA256 over its header,
// which holds graph.db's inode, and its checksums (seal.go); a writer
// keeps an open seal with the MAC while it works instead of removing the
// seal, and a new graph.db gets one when it is created. An open with a Key
// believes only a store whose seal verifies for the graph.db it opens: any
// other is foreign, an error wrapping ErrForeign that says to run `relay
// index`; a writable open with Rebuild moves it aside and starts a new
// graph (Rebuilt says so). Adjacency snapshots carry a tag under the same
// key (snapshot.go), so snapshots that came with the repository are
// rebuilt, not loaded. Options.TrustForeign believes a store whatever its
// MAC (one shared on purpose); its writable open seals the store with Key
// on Close. TestForeignStore, TestTrustForeignAdopts and
// TestForeignSnapshotIgnored check it; cmd/relay's
// TestCommittedStoreNotBelieved does end to end.
//
// Limits: at most 2^32-1 interned ids and 2^24 distinct edge file names;
// ids of deleted nodes stay interned (a few bytes each) until the store is
// rebuilt.
package embedded
