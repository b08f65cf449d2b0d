package c

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/cinclude"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the C records (language "c"), kept in
// Meta "index.c.version"; a change re-indexes C only.
const FormatVersion = "c-1"

// isSource reports whether rel is a C file: C in internal/repofs's
// language table (.c and .h; see the package doc for .h), with a name
// before the extension.
func isSource(rel, base string) bool {
	l, _ := repofs.Language(rel)
	return l == "c" && (strings.HasSuffix(base, ".c") || strings.HasSuffix(base, ".h")) && len(base) > 2
}

// isHeader reports whether rel is a .h header, which C yields to C++ in
// a repository with C++ sources (the package doc).
func isHeader(rel string) bool { return strings.HasSuffix(rel, ".h") }

// isConfig reports whether rel is a build file whose include
// directories resolve #include (cinclude.Dirs).
func isConfig(rel, base string) bool {
	return cinclude.IsBuildFile(base) && !strings.HasPrefix(path.Base(rel), ".")
}

// cfgOwner is the pseudo-owner whose Hash fingerprints the build files:
// a change resolves every C file again.
const cfgOwner = "@c/build"

// Lang registers C (frontend.go).
var Lang = frontend.Lang{
	Name: "c", Title: "C", Version: FormatVersion, VersionKey: "index.c.version", Unit: "files",
	Files:  ".c and .h files",
	Source: isSource, Config: isConfig, ConfigOwner: cfgOwner, Budgeted: true,
	Yields: isHeader, YieldsTo: "cpp",
	New: newFrontend, Unavailable: sitter.Unavailable,
}
