package index

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// pyLang registers Python, parsed with tree-sitter (python.go).
var pyLang = frontend.Lang{
	Name: "python", Title: "Python", Version: PyFormatVersion, VersionKey: MetaPyVersion, Unit: "modules",
	Files:  ".py files",
	Source: func(_, base string) bool { return strings.HasSuffix(base, ".py") },
	Config: func(_, _ string) bool { return false }, Budgeted: true,
	New: newPyFrontend, Unavailable: sitter.Unavailable,
}
