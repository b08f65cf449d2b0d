// Package diskindex owns the files of the search index in relay's state
// directory: the commit file retrieve.idx and the segment files
// retrieve-<n>.seg it names (segment.go: each segment the index of a run
// of files; a checksummed header, the postings as flat sections and the
// rest as gob messages; a segment written once, the commit replaced
// through a temp file and a rename; read back only after every check
// passes and concatenated into one Index; indexfile.go, lexfile.go), the
// stale marker retrieve.stale of an update
// that did not finish (stale.go) and the MAC retrieve.mac that says whose
// index it is (owner.go). The manifest beside them is package retrieve's
// (its build's shortcut); this package only knows its name, to remove it
// with the index.
//
// Its errors state the problem only ("the search index at … is damaged
// (checksum mismatch)"); what to do about it is for the program that shows
// them. They match the sentinels ErrNoIndex, ErrDamaged, ErrStale and
// ErrForeign with errors.Is; package retrieve exports them under its own
// names (retrieve.ErrNoIndex, ErrIndexDamaged, ErrIndexStale,
// ErrIndexForeign).
package diskindex

import (
	"errors"

	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
)

// FileName is the name of the index file in the index directory.
const FileName = "retrieve.idx"

// ManifestFile is the name of the build's manifest in the index
// directory (package retrieve writes it); MarkStale removes it with the
// index when it cannot mark the index.
const ManifestFile = "retrieve.manifest"

// Version changes whenever the on-disk layout or the tokenizer does; an
// index of another version is rebuilt from scratch. 7: the checksummed
// header (indexfile.go); 8: object-literal members leave their lines to
// the text windows (chunk.objectMember); 9: the postings as flat sections,
// then gob messages with the chunks in batches (indexfile.go, lexfile.go);
// 10: segments and a commit file (segment.go); 11: CJK bigrams, -ied
// stemmed as -ies (package tokenize).
const Version = 11

// Index is the persisted search index.
type Index struct {
	Version    int
	Files      []FileEntry
	Chunks     []chunk.Chunk
	Lex        *bm25.Index
	FileLex    *bm25.Index // whole files as documents, in Files order
	EmbedModel string
	Vectors    map[string][]float32 // chunk hash → unit vector
}

// FileEntry records which chunks came from a file and the key (content
// hash + graph hash) they were built from.
type FileEntry struct {
	Path  string
	Key   string
	First int32
	Count int32
}

// ErrNoIndex is matched by the error of Read for an index of another
// format version (an older relay): it is rebuilt, not repaired.
var ErrNoIndex = errors.New("no retrieval index")

// ErrDamaged is matched by the error of Read and Verify when the index
// file is empty, truncated, fails its checksum or does not decode, and by
// the errors of CheckStale and CheckOwner, so that a caller that works
// without a damaged index works without a stale or a foreign one.
var ErrDamaged = errors.New("search index damaged")

// ErrStale is matched by the error of CheckStale: the last update of the
// index did not finish, so it is older than the graph and the files.
var ErrStale = errors.New("search index stale")

// ErrForeign is matched by the error of CheckOwner: the index was not
// written by relay with this user's key.
var ErrForeign = errors.New("search index not written by this user's relay")
