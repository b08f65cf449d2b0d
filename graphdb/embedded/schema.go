package embedded

// schemaVersion is stored in PRAGMA user_version. Bump it whenever the
// tables below or the encodings of nodecodec.go and edgeset.go change; a
// store of another version is refused with a message saying to run
// `relay index`, which rebuilds it (Options.Rebuild). Version 4 added the
// record checksums.
const schemaVersion = 4

// applicationID tags the SQLite file as a relay graph (PRAGMA application_id),
// so a foreign database in .relay/ is reported instead of misread.
const applicationID = 0x72656c79 // "rely"

// schema creates every table and index. Node ids are interned in syms so
// edges and the in-memory adjacency work on small integers; a node's rowid is
// its id's sid, so "does the far end exist" is one primary-key probe.
//
// Edges are stored per owner, as one packed blob (see edgeset.go) in
// edgesets: an owner's edges are only ever replaced together, and every
// edge query is answered by the in-memory adjacency built from these blobs
// (adjacency.go), so per-edge rows and B-tree indexes would cost most of a
// full index's write time and buy nothing.
//
// nodes_name and nodes_file carry (file, start_line) so results come out of
// the index nearly in the promised order and LIMIT stops early even for a
// name declared thousands of times ("String", "Error").
//
// nodes.rest packs the fields no query looks at and the row's checksum (see
// nodecodec.go); syms.crc and files.crc are the checksums of those rows
// (stringSum), verified on every read that answers from them.
//
// nodes.rq holds the qname with its bytes reversed: exact-qname lookups and
// suffix queries ("Server.Serve" matches "net/http.Server.Serve") both become
// range scans of one index.
const schema = `
CREATE TABLE IF NOT EXISTS sys (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
	fid      INTEGER PRIMARY KEY,
	path     TEXT NOT NULL UNIQUE,
	hash     TEXT NOT NULL,
	language TEXT NOT NULL,
	module   TEXT NOT NULL,
	size     INTEGER NOT NULL,
	errors   TEXT,
	crc      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS syms (
	sid INTEGER PRIMARY KEY,
	id  TEXT NOT NULL UNIQUE,
	crc INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS nodes (
	sid        INTEGER PRIMARY KEY,
	owner      INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	name       TEXT NOT NULL,
	qname      TEXT NOT NULL,
	rq         BLOB NOT NULL,
	loc        TEXT NOT NULL,
	file       TEXT NOT NULL,
	start_line INTEGER NOT NULL,
	rest       BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS nodes_owner ON nodes(owner);
CREATE INDEX IF NOT EXISTS nodes_name ON nodes(name, file, start_line);
CREATE INDEX IF NOT EXISTS nodes_rq ON nodes(rq);
CREATE INDEX IF NOT EXISTS nodes_loc ON nodes(loc);
CREATE INDEX IF NOT EXISTS nodes_file ON nodes(file, start_line);
CREATE TABLE IF NOT EXISTS edgesets (
	fid    INTEGER PRIMARY KEY,
	counts TEXT NOT NULL,
	data   BLOB NOT NULL
);
INSERT OR IGNORE INTO sys(key, value) VALUES ('generation', 0), ('commits', 0);
`
