// Package retrieve owns relay's retrieval without a model: the chunk index
// built next to the code graph, hybrid search (BM25 + optional embeddings,
// weighted RRF, filters, graph-aware re-ranking, context expansion), and
// the offline context report that `relay ask`/`relay scope` fall back to.
// The review context for a diff lives in package review, the localization
// eval in package eval, the unified-diff parser in package udiff, and the
// agents' `search` tool in package tools (tools.NewSearch, which
// *Searcher serves through [Searcher.SearchTool]).
//
// # Index
//
// [Build] walks the repository (honouring .gitignore, skipping .git, .relay,
// vendor, node_modules, binary files and files over 1 MiB) and cuts every
// text file into chunks ([Chunk]): functions, methods and types from the
// graph (doc comment, signature, body by line range, capped), markdown
// sections split at headings, and windows of 50 lines over everything else
// (config, SQL, YAML, the lines of a source file no symbol covers; a
// function-valued property of an object literal is a chunk of its own but
// leaves its lines to the window over the object). Each
// chunk carries language, path, kind, name, parent and its graph node. The
// index — chunks, a BM25F inverted index over chunks (name ×3, path ×1.5,
// body ×1), a BM25 index over whole files, and embeddings cached by chunk
// hash — lives in the index directory (relay's state directory:
// <root>/.relay, or the store or state directory the program names) as
// segments, each the index of a run of about 512 files, under a commit
// file, retrieve.idx, that names them; each file has a checksummed
// header, the postings as flat sections and gob messages for the rest; a
// segment is written once under a new name and the commit replaced by a
// rename, so an interrupted build keeps the previous index (package
// retrieve/internal/diskindex). An update rewrites only the segments
// whose files changed (the merge policy in segments.go); their unchanged
// files reuse their chunks and postings, the other segments are neither
// read nor rewritten, and the term statistics are taken over all
// segments when the index is opened, so ranking is that of a full build.
// Files the manifest's stamps prove unchanged are not read; vectors are
// only computed for new chunk hashes. The build reads, chunks and
// tokenizes files in blocks on every core; each file is tokenized once,
// line by line, and its chunks and whole-file document are counted from
// its lines' terms (see the DESIGN note in termcount.go). The symbols come
// from the graph, one query per file, or, for the first build of a new
// store, from the nodes the graph indexer handed over as it wrote them
// ([Symbols]). [Open] only reads, and refuses an index
// that fails its checks ([ErrIndexDamaged]), which the next Build
// rebuilds; [OpenInMemory] builds the index without writing anything,
// for a read-only directory. An index whose update did not finish is
// marked stale (retrieve.stale, [ErrIndexStale]) and one without the MAC
// of the store key (retrieve.mac, [ErrIndexForeign]: it came with the
// repository) is refused the same way; the next Build brings a stale one
// up to date (checking every file) and rebuilds a foreign one from
// scratch. A Build that cannot write the index fails with
// [ErrIndexNotWritten] and leaves the old one marked stale.
//
// # Errors
//
// The package's errors and texts state the problem only, and name the
// index file where there is one; they never name a command, a flag or an
// environment variable, because the same text reaches a terminal, a
// tracker comment of the bot and an MCP client. The program that shows an
// error tells the sentinels apart with errors.Is ([ErrNoIndex],
// [ErrIndexDamaged], [ErrIndexStale], [ErrIndexForeign],
// [ErrIndexNotWritten], [ErrEmbedNotConfigured]) and adds the advice that
// fits where its user is.
//
// # Search
//
// The tokenizer ([Tokenize], package retrieve/internal/tokenize) keeps
// whole identifiers and their camelCase / snake_case / digit parts,
// lower-cases, strips a few inflections ("retried", "retries" → "retry"),
// splits Han, Kana and Hangul runs into overlapping bigrams apart from the
// Latin letters and digits around them, and drops a small stop list;
// paths are tokenized by segment. A query term absent from the
// vocabulary is expanded to the terms that contain it (trigram index over
// the vocabulary), which finds partial identifiers and error codes.
//
// [Searcher.Search] runs: a fast path for a query that is just an
// identifier (graph FindSymbols), a file name (path match) or a hex code
// (exact term); otherwise BM25 (top 100), cosine top-k when the index has
// vectors for the query embedder's model, and symbols the query names in
// code form (`Flag.Set`, parseConfig), fused with weighted Reciprocal Rank
// Fusion Σ w_r/(60 + rank_r) (BM25 0.4, vector 1.0, mentions 0.5). Then
// test files are halved unless the query mentions tests, generated,
// bundled, minified and vendored files are halved (classify.go: Linguist's
// rules through go-enry and the build tools' conventions), hits in folders
// the query names are boosted ×1.3, and the first 40 hits are re-ranked by
// graph distance to the 3 best (see the DESIGN note in graph.go). Filters
// (language, path glob, kind) are hard; when they leave nothing, the file
// part of the path pattern and then the folder are dropped, and the result
// says so. Expansion attaches the parent type, up to 3 sibling methods, up
// to 5 imports and one hop of callers and callees.
//
// # Reports and localization
//
// [ContextReport] ranks files (chunk hits fused with whole-file BM25, its
// title's terms weighted up when the text has more lines, the title's own
// whole-file BM25 when the rest is noisy — code blocks, stack traces — and
// the files the text names) and symbols with `path:line` snippets and the reasons for
// each, and says that no model was used. [Searcher.Localize] predicts the
// files and functions a problem statement is about (package eval scores
// it): real issue text is cleaned of URLs, versions, addresses and
// issue-template noise before the lexical rankers see it; files named by
// path, file name, qualified name, stack frame, class or folder name, or
// holding a quoted message literally, rank of their own (issuetext.go,
// issuemessage.go); test files come after the rest and generated or
// vendored files last, in the function list as in the file list, and no
// TypeScript declaration file ranks above the code it declares; for
// a noisy report functions are ordered by their own rank fused with their
// file's;
// of a name most files define (each locale's `locale.ordinal`) only the
// first function takes a place, and a window that matches the name of an
// object member it holds brings that member in after it.
// [FileBaseline]
// is the plain BM25-over-files baseline it is compared with, and
// [Searcher.Neighbours] finds the symbols similar to a set of anchors
// (package review's semantic neighbours).
//
// # Packages
//
// The facade is this package; what it is made of lives in internal
// packages behind it, each with a small API, imported in one direction:
//
//	retrieve/internal/tokenize   text → terms: the tokenizer, the stemmer, the word table, Vocab
//	retrieve/internal/bm25       BM25F postings: Counter, Builder, Index (query expansion, scoring)
//	retrieve/internal/chunk      file → chunks: symbols, markdown sections, text windows; a chunk's text and hash
//	retrieve/internal/diskindex  the index directory: retrieve.idx (format, checks), retrieve.stale, retrieve.mac
//
// bm25 imports tokenize, diskindex imports bm25 and chunk; none imports
// retrieve. The build pipeline (walk, blocks of files, the manifest),
// search, fusion, graph re-ranking, issue-text handling, reports and
// localization stay here.
//
// retrieve imports graphdb, tools (for the search tool's query and answer
// types), internal/egress, internal/lines, internal/redact and
// internal/safefs (to read files beneath the repository root); none of
// those imports it back.
package retrieve
