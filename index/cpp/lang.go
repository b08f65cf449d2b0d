package cpp

import (
	"path"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// FormatVersion is the format of the C++ records (language "cpp"), kept
// in Meta "index.cpp.version"; a change re-indexes C++ only.
const FormatVersion = "cpp-1"

// sourceExts are the extensions of C++ sources and headers, written in
// lower case as compilers and build files name them (those
// internal/repofs's language table gives "cpp", and .h).
var sourceExts = map[string]bool{".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true, ".hxx": true, ".h": true}

// isSource reports whether a file is C++: one of sourceExts with a name
// before it. A .h is claimed here too; where C is registered before C++
// it claims .h first and yields the headers of a repository with C++
// sources to C++ (the package doc).
func isSource(_, base string) bool {
	ext := path.Ext(base)
	return sourceExts[ext] && len(base) > len(ext)
}

// Lang registers C++ (frontend.go).
var Lang = frontend.Lang{
	Name: "cpp", Title: "C++", Version: FormatVersion, VersionKey: "index.cpp.version", Unit: "files",
	Files:  ".cc, .cpp, .cxx, .hpp, .hh, .hxx or .h files",
	Source: isSource, Config: func(_, _ string) bool { return false },
	ConfigOwner: nsOwner, Budgeted: true, New: newFrontend, Unavailable: sitter.Unavailable,
}
