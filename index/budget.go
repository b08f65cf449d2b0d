package index

import (
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
//     bounded by its own nesting limits (java/limits.go), which index
//     what lies above the limit rather than refuse the file.
//
// A parse that misses its deadline and a tree that is too deep are
// errors of the file (Summary.Errors), written like an unparsed file. A
// panic while extracting one file is recovered by the runner (parseEach)
// and becomes that file's error. The budgets are fingerprinted in the
// store (MetaBudgets): changing one re-indexes the tree-sitter languages
// in full, so a file skipped under the old budgets is retried.

// Defaults of the per-file budgets (Options; internal/frontend).
const (
	DefaultMaxFileBytes = frontend.DefaultMaxFileBytes
	DefaultMaxDepth     = frontend.DefaultMaxDepth
	DefaultParseTimeout = frontend.DefaultParseTimeout
)

// MetaBudgets holds the fingerprint of the per-file budgets of the last
// run; a change re-indexes the Python, TypeScript/JavaScript and Java
// files in full.
const MetaBudgets = "index.budgets"

// budgetsOf applies the defaults to opts' budgets (frontend.NewBudgets).
func budgetsOf(opts Options) frontend.Budgets {
	return frontend.NewBudgets(opts.MaxFileBytes, opts.MaxDepth, opts.ParseTimeout)
}
