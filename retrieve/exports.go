package retrieve

import (
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// What the internal packages own, under the names callers know.

// Chunk is one retrievable unit: a symbol from the graph, a markdown
// section or a window of another text file. Its text is not stored: it is
// read from the file by line range when needed.
type Chunk = chunk.Chunk

// Chunk kinds, the values of Chunk.Kind and of the kind filter.
const (
	ChunkFunction = chunk.KindFunction // package-level function
	ChunkMethod   = chunk.KindMethod   // method (member that is not a field)
	ChunkType     = chunk.KindType     // struct, interface, class, alias…
	ChunkSection  = chunk.KindSection  // markdown section, split at headings
	ChunkText     = chunk.KindText     // a window of a file not covered by symbols
)

// ChunkKinds lists the chunk kinds in a stable order.
var ChunkKinds = chunk.Kinds

// Tokenize splits text into index terms, code-aware: whole words
// (lower-cased) and the parts of compounds (camelCase, PascalCase,
// snake_case, digits), lightly stemmed, without stop words and one-letter
// tokens; see package retrieve/internal/tokenize. Terms may repeat.
func Tokenize(text string) []string { return tokenize.Text(text) }

// TokenizePath splits a repository-relative path into terms: every
// directory and the file name are tokenized like identifiers, and the file
// name is also kept whole ("store_test.go").
func TokenizePath(p string) []string { return tokenize.Path(p) }

// IndexFile is the name of the retrieval index in the index directory
// (BuildOptions.Dir, default <root>/.relay).
const IndexFile = diskindex.FileName

// ErrNoIndex is returned by Open when the repository has no retrieval
// index, or one of another format (an older relay): build it again.
var ErrNoIndex = diskindex.ErrNoIndex

// ErrIndexDamaged is matched (errors.Is) by the error of Open, and of
// Build's read of the previous index, when the index file is empty,
// truncated, fails its checksum or does not decode. Build then rebuilds
// it. ErrIndexStale and ErrIndexForeign errors match it too, so callers
// that work without a damaged index work without a stale or foreign one.
var ErrIndexDamaged = diskindex.ErrDamaged

// ErrIndexStale is matched (errors.Is) by Open's error when the last
// update of the index did not finish: it is older than the graph and the
// files. The next Build brings it up to date.
var ErrIndexStale = diskindex.ErrStale

// ErrIndexForeign is matched (errors.Is) by Open's error when the index
// was not written by relay with this key (see OpenOptions.Key). The next
// Build with the key rebuilds it.
var ErrIndexForeign = diskindex.ErrForeign

// MarkStale marks the search index in dir stale before what it is derived
// from changes: Open refuses it (ErrIndexStale) until a Build brings it up
// to date. When the mark cannot be made, the index is removed.
func MarkStale(dir string) error { return diskindex.MarkStale(dir) }
