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
