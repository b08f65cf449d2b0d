package python

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the Python records (language "python");
// they are versioned apart from Go's.
const FormatVersion = "py-5"

// MetaVersion is the Meta key holding FormatVersion of the last run; a
// change forces a full Python run (the other languages are untouched).
const MetaVersion = "index.py.version"

// isSource reports whether rel is a Python file the frontend reads:
// repofs's language table names the language, and of its extensions only
// .py is indexed (stub files, .pyi, are not read).
func isSource(rel, base string) bool {
	l, _ := repofs.Language(rel)
	return l == "python" && strings.HasSuffix(base, ".py")
}

// Lang registers Python, parsed with tree-sitter (frontend.go).
var Lang = frontend.Lang{
	Name: "python", Title: "Python", Version: FormatVersion, VersionKey: MetaVersion, Unit: "modules",
	Files:  ".py files",
	Source: isSource, Config: func(_, _ string) bool { return false }, Budgeted: true,
	New: newFrontend, Unavailable: sitter.Unavailable,
}
