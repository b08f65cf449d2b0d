package frontend

import (
	"bytes"
	"fmt"
	"time"
)

// minified-file recognition: at least minifiedMinBytes and fewer than one
// line break per minifiedLineBytes.
const (
	minifiedMinBytes  = 64 << 10
	minifiedLineBytes = 1000
)

// budgets are a run's per-file limits, defaults applied; a zero field
// means no limit.
type Budgets struct {
	MaxBytes int64
	MaxDepth int
	Timeout  time.Duration
}

// fingerprint is MetaBudgets' value. The deadline is left out: a file
// that missed it is retried when it changes or with Options.Full.
func (b Budgets) Fingerprint() string {
	return fmt.Sprintf("bytes=%d depth=%d", b.MaxBytes, b.MaxDepth)
}

// Options fields of the budgets, as Diagnostic.Limit names them.
const (
	LimitFileBytes    = "MaxFileBytes"
	LimitDepth        = "MaxDepth"
	LimitParseTimeout = "ParseTimeout"
)

// skip says why a file of this content is not parsed ("" when it is):
// too large, or minified; limit is the Options field of the budget
// (Diagnostic.Limit). With the size limit off, neither applies.
func (b Budgets) Skip(data []byte) (why, limit string) {
	if b.MaxBytes == 0 {
		return "", "" // the limit is off: minified files are parsed too
	}
	if int64(len(data)) > b.MaxBytes {
		return fmt.Sprintf("not parsed: %s is over the %s file-size limit (Options.%s); only the file itself is indexed", SizeText(int64(len(data))), SizeText(b.MaxBytes), LimitFileBytes), LimitFileBytes
	}
	if IsMinified(data) {
		return fmt.Sprintf("not parsed: looks minified or bundled (%s with %d line breaks); only the file itself is indexed", SizeText(int64(len(data))), bytes.Count(data, []byte{'\n'})), LimitFileBytes
	}
	return "", ""
}

// isMinified reports whether data looks like a minified or bundled file:
// large, with very long lines on average.
func IsMinified(data []byte) bool {
	return len(data) >= minifiedMinBytes && bytes.Count(data, []byte{'\n'}) < len(data)/minifiedLineBytes
}

// sizeText writes n bytes for a message: "20.0 MiB", "64 KiB", "900 B".
func SizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// Defaults of the per-file budgets (index.Options).
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

// NewBudgets applies the defaults to a run's budgets (index.Options
// MaxFileBytes, MaxDepth, ParseTimeout): 0 takes the default, a negative
// value turns the limit off.
func NewBudgets(maxBytes int64, maxDepth int, timeout time.Duration) Budgets {
	b := Budgets{MaxBytes: maxBytes, MaxDepth: maxDepth, Timeout: timeout}
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
