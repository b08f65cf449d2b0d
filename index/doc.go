// Package index owns turning source code into the code graph: it reads a
// repository and writes graphdb nodes and edges, incrementally.
//
// Run is the entry point. It scans the root, compares content hashes with
// the store's FileRecords, re-extracts what changed and writes everything in
// ONE transaction (an interrupted run leaves the previous graph usable).
// A run with no change loads nothing and writes nothing but, at times, the
// stamps table (MetaStamps: each file's size, times, inode and hash as the
// last scan saw them), which lets a scan take the hash of a file whose
// stat did not change instead of reading it; a file modified within 2 s
// of the scan that stamped it is read and hashed (git's racy rule; see
// stamps.go). Its steps are the
// methods of runner (index.go): scan, plan (what each frontend re-extracts,
// which owners go), write (one goroutine owns the transaction), commit and
// summarize.
//
// # Go
//
// Package index/golang indexes Go; its package doc describes how.
//
// # Python
//
// Package index/python indexes Python; its package doc describes how.
//
// # TypeScript and JavaScript
//
// Package index/typescript indexes TypeScript and JavaScript; its package
// doc describes how.
//
// # Java
//
// Package index/java indexes Java; its package doc describes how.
//
// A relay built without cgo (CGO_ENABLED=0) has no tree-sitter: Python,
// TypeScript/JavaScript and Java files are then listed in Summary.Notes,
// one note per language, and their stored records are kept.
//
// # What is read
//
// Only what the tools may read is indexed: regular files whose real path
// lies inside the root. Files are opened beneath the root through
// internal/safefs (os.Root, O_NONBLOCK, fstat after opening), so a file
// swapped for a FIFO or a link outside the repository after the scan is
// refused, never waited on. The scan notes in Summary.Notes, by
// repository-relative path, what it does not index: files that are not
// regular (FIFOs, devices, sockets), symbolic links whose real path lies
// outside the root (.go and .py files, directories), link loops, broken
// .go/.py links, directories that cannot be read (a path too long to
// open), files that vanish; the run goes on. .py links and links to
// directories are not followed (for .go links see index/golang).
//
// # Partial failure
//
// A module, package or file that cannot be loaded is listed in
// Summary.Errors and everything else is indexed; Run returns an error only
// when it wrote nothing (a go list past its timeout, a cancelled context,
// a store error). How each frontend gets past a file, package or module it
// cannot load is told in its package doc.
//
// # Budgets per file
//
// Each Python, TypeScript/JavaScript and Java file is held to budgets
// (Options.MaxFileBytes, MaxDepth, ParseTimeout; `relay index
// --max-file-size, --max-depth, --parse-timeout`), so that one file a
// repository committed cannot end, stall or exhaust a run:
//
//   - a file over DefaultMaxFileBytes (4 MiB), or one that looks minified
//     or bundled (64 KiB or more with under one line break per 1,000
//     bytes), is not parsed: it is listed in Summary.Notes and only its
//     file node is written;
//   - each tree-sitter parse runs under a progress callback that stops it
//     after DefaultParseTimeout (30 s) or as soon as the run's context is
//     cancelled (Ctrl-C stops a parse in progress within milliseconds);
//   - a syntax tree deeper than DefaultMaxDepth (4,000 levels) is refused,
//     measured by one iterative pass before any recursive walk (a Go
//     stack overflow cannot be recovered); Java files are held to the
//     Java frontend's own nesting limits instead (java/limits.go), which
//     bound its walks and keep what lies above them;
//   - a panic while extracting one file is recovered: the file is left
//     out and its error is listed in Summary.Errors.
//
// The budgets are fingerprinted in the store (MetaBudgets): changing one
// re-indexes the tree-sitter languages in full. Parents are looked up in a
// map built by the same pass (tree-sitter's Node.Parent walks down from the
// root on every call), dotted expressions are rendered up to 64 links, and
// a Python method resolution order keeps at most 256 classes, so the cost
// of a file stays near-linear in its size. See the DESIGN note in
// budget.go; the pathological corpus (index/internal/pathcorpus) and its
// benchmark (index/internal/benchpath) exercise each case.
//
// # Languages
//
// The orchestration (scan, diff, transaction, progress) is shared; each
// language is a package of its own holding its frontend and its
// registration record (index/internal/frontend.Lang), listed, in order, in
// fileLangs (langs.go): Go (index/golang), Python (index/python), Java
// (index/java) and TypeScript/JavaScript (index/typescript).
// The scan asks the registered languages to claim each file (its source,
// its configuration files; Go's own rules — go.mod and go.work, the
// directories the go command ignores, files .gitignore hides but go list
// reads — live in Go's registration), and Run gives each present language
// its job, format version (Meta "index.<name>.version"; Python keeps
// "index.py.version") and Summary.Languages entry, in the same way. Go
// works a package at a time and reads its configuration before the plan
// (Prepare, index/golang); the tree-sitter languages work a file at a time.
// A panic while extracting one file or Go package is that unit's
// diagnostic (ParseOne, index/golang's checkOne), one elsewhere in a frontend the
// language's (runner.index). A repository holding several languages
// indexes them all in one transaction; Run returns ErrNoSource (its
// message naming the languages) only when there is none.
package index
