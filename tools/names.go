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

// privateDirs are folders no tool shows to a model: git's own files
// (.git/config may hold a token in a remote URL or an http.extraheader)
// and relay's (.relay: the index, review feedback, transcripts of past
// runs). grep and glob exclude them by name at any depth, read refuses
// them, and a directory listing leaves them out.
var privateDirs = []string{".git", ".relay"}

// privateDir returns the private folder name among rel's components
// (slash separated, repository-relative), or "".
func privateDir(rel string) string {
	for _, seg := range strings.Split(rel, "/") {
		for _, d := range privateDirs {
			if seg == d {
				return d
			}
		}
	}
	return ""
}

// privateOf is privateDir that also knows o.Private.
func (o Options) privateOf(rel string) string {
	if d := privateDir(rel); d != "" {
		return d
	}
	for _, p := range o.Private {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return p
		}
	}
	return ""
}

// privateText is the model's answer to a read of a private folder.
func privateText(shown, dir string) string {
	what := "relay's own index, review feedback and run transcripts"
	if dir == ".git" {
		what = "git's own files (its configuration may hold credentials)"
	}
	return fmt.Sprintf("%s is inside %s, which holds %s, not the repository's sources; the tools do not read it. Use glob or grep to find a source file.", shown, dir, what)
}
