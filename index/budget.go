package index

import (
	"bytes"
	"fmt"
	"time"
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

// minified-file recognition: at least minifiedMinBytes and fewer than one
// line break per minifiedLineBytes.
const (
	minifiedMinBytes  = 64 << 10
	minifiedLineBytes = 1000
)

// MetaBudgets holds the fingerprint of the per-file budgets of the last
// run; a change re-indexes the Python, TypeScript/JavaScript and Java
// files in full.
const MetaBudgets = "index.budgets"

// budgets are a run's per-file limits, defaults applied; a zero field
// means no limit.
type budgets struct {
	maxBytes int64
	maxDepth int
	timeout  time.Duration
}

// budgetsOf applies the defaults to opts' budgets: 0 takes the default, a
// negative value turns the limit off.
func budgetsOf(opts Options) budgets {
	b := budgets{maxBytes: opts.MaxFileBytes, maxDepth: opts.MaxDepth, timeout: opts.ParseTimeout}
	if b.maxBytes == 0 {
		b.maxBytes = DefaultMaxFileBytes
	}
	if b.maxDepth == 0 {
		b.maxDepth = DefaultMaxDepth
	}
	if b.timeout == 0 {
		b.timeout = DefaultParseTimeout
	}
	b.maxBytes, b.maxDepth, b.timeout = max(b.maxBytes, 0), max(b.maxDepth, 0), max(b.timeout, 0)
	return b
}

// fingerprint is MetaBudgets' value. The deadline is left out: a file
// that missed it is retried when it changes or with Options.Full.
func (b budgets) fingerprint() string {
	return fmt.Sprintf("bytes=%d depth=%d", b.maxBytes, b.maxDepth)
}

// Options fields of the budgets, as Diagnostic.Limit names them.
const (
	limitFileBytes    = "MaxFileBytes"
	limitDepth        = "MaxDepth"
	limitParseTimeout = "ParseTimeout"
)

// skip says why a file of this content is not parsed ("" when it is):
// too large, or minified; limit is the Options field of the budget
// (Diagnostic.Limit). With the size limit off, neither applies.
func (b budgets) skip(data []byte) (why, limit string) {
	if b.maxBytes == 0 {
		return "", "" // the limit is off: minified files are parsed too
	}
	if int64(len(data)) > b.maxBytes {
		return fmt.Sprintf("not parsed: %s is over the %s file-size limit (Options.%s); only the file itself is indexed", sizeText(int64(len(data))), sizeText(b.maxBytes), limitFileBytes), limitFileBytes
	}
	if isMinified(data) {
		return fmt.Sprintf("not parsed: looks minified or bundled (%s with %d line breaks); only the file itself is indexed", sizeText(int64(len(data))), bytes.Count(data, []byte{'\n'})), limitFileBytes
	}
	return "", ""
}

// isMinified reports whether data looks like a minified or bundled file:
// large, with very long lines on average.
func isMinified(data []byte) bool {
	return len(data) >= minifiedMinBytes && bytes.Count(data, []byte{'\n'}) < len(data)/minifiedLineBytes
}

// sizeText writes n bytes for a message: "20.0 MiB", "64 KiB", "900 B".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
