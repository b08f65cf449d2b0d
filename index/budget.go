package index

import (
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
)

// DESIGN: budgets per file. `relay index` runs on whatever lands on a
// repository, so one file must not end, stall or exhaust a run. Each
// Python, TypeScript/JavaScript and Java file is held to three budgets
// (Options.MaxFileBytes, MaxDepth, ParseTimeout):
//
//   - a file over the size limit, or one that looks minified or bundled
//     (at least minifiedMinBytes with fewer than one line break per
//     minifiedLineBytes), is not parsed: it is listed under Summary.Notes
//     and its file record and file node are written (the search index
//     still reads its text), so later runs do not retry it;
//   - a parse runs under tree-sitter's progress callback, which stops it
//     at the deadline or as soon as the run's context is cancelled
//     (Ctrl-C);
//   - before any extractor walks the tree, one iterative pass
//     (indexTree) measures its depth and records each node's parent; a
//     tree deeper than MaxDepth is refused. The extractors recurse once
//     or twice per syntax level, and Go cannot recover from a stack
//     overflow, so bounding the depth bounds every walk at once; the
//     parent map replaces tree-sitter's Node.Parent, which walks down
//     from the root on every call. Java skips this pass: its walks are
//     bounded by its own nesting limits (javalimits.go), which index
//     what lies above the limit rather than refuse the file.
//
// A parse that misses its deadline and a tree that is too deep are
// errors of the file (Summary.Errors), written like an unparsed file. A
// panic while extracting one file is recovered by the runner (parseEach)
// and becomes that file's error. The budgets are fingerprinted in the
// store (MetaBudgets): changing one re-indexes the tree-sitter languages
// in full, so a file skipped under the old budgets is retried.

// Defaults of the per-file budgets (Options).
const (
	// DefaultMaxFileBytes is above the largest hand-written source files
	// in common repositories (TypeScript's checker.ts is about 3 MB).
	DefaultMaxFileBytes = 4 << 20
	// DefaultMaxDepth is far above what people write and keeps every
	// recursive walk a few megabytes of stack: the deepest file of
	// Python's standard library nests 808 syntax levels (a test of deep
	// nesting), TypeScript declaration files with long union types about
	// 400, each member one level; CPython itself refuses 200 nested
	// parentheses.
	DefaultMaxDepth = 4000
	// DefaultParseTimeout is far above the parse of any file under the
	// size limit on an idle machine (a 4 MB file parses in about a second).
	DefaultParseTimeout = 30 * time.Second
)

// MetaBudgets holds the fingerprint of the per-file budgets of the last
// run; a change re-indexes the Python, TypeScript/JavaScript and Java
// files in full.
const MetaBudgets = "index.budgets"

// budgetsOf applies the defaults to opts' budgets: 0 takes the default, a
// negative value turns the limit off.
func budgetsOf(opts Options) frontend.Budgets {
	b := frontend.Budgets{MaxBytes: opts.MaxFileBytes, MaxDepth: opts.MaxDepth, Timeout: opts.ParseTimeout}
	if b.MaxBytes == 0 {
		b.MaxBytes = DefaultMaxFileBytes
	}
	if b.MaxDepth == 0 {
		b.MaxDepth = DefaultMaxDepth
	}
	if b.Timeout == 0 {
		b.Timeout = DefaultParseTimeout
	}
	b.MaxBytes, b.MaxDepth, b.Timeout = max(b.MaxBytes, 0), max(b.MaxDepth, 0), max(b.Timeout, 0)
	return b
}
