package tools

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/internal/safefs"
)

// How paths and arguments appear in the tools' output and messages; the
// same forms safefs uses in the errors it returns (short names because
// every tool calls them).
var (
	quoteArg    = safefs.Quote       // a model's argument, capped at safefs.MaxEcho bytes
	displayPath = safefs.DisplayPath // a repository path, Go-quoted when not plain
	unquotePath = safefs.UnquotePath // displayPath undone, for read's argument
)

// checkPattern refuses glob/include patterns that could leave the root or
// that no tool could use.
func checkPattern(what, p string) string {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Sprintf("%s contains a NUL byte; pass a plain pattern", what)
	case len(p) > MaxPatternBytes:
		return fmt.Sprintf("%s is %d bytes long (limit %d); use a shorter pattern", what, len(p), MaxPatternBytes)
	}
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if seg == ".." {
			return fmt.Sprintf("%s %s contains \"..\"; patterns are relative to the repository root and cannot leave it", what, quoteArg(p))
		}
	}
	return ""
}
