package index

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// PyFormatVersion is the format of the Python records (language "python");
// they are versioned apart from Go's.
const PyFormatVersion = "py-5"

// MetaPyVersion holds PyFormatVersion of the last run; a change forces a
// full Python run (Go is untouched).
const MetaPyVersion = "index.py.version"

// pyLang registers Python, parsed with tree-sitter (python.go).
var pyLang = frontend.Lang{
	Name: "python", Title: "Python", Version: PyFormatVersion, VersionKey: MetaPyVersion, Unit: "modules",
	Files:  ".py files",
	Source: func(_, base string) bool { return strings.HasSuffix(base, ".py") },
	Config: func(_, _ string) bool { return false }, Budgeted: true,
	New: newPyFrontend, Unavailable: sitter.Unavailable,
}
