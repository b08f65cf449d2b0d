package golang

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the Go records (language "go"). A store
// holding another version is re-indexed from scratch. go-2: calls in
// package-level variable initialisers (synthetic "#vars" callers). go-4:
// references edges, implements edges of generic types and between
// interfaces, testdata packages that type-check indexed as packages. go-5:
// implements edges to generic interfaces through their instantiations, the
// go.pointer_methods and go.embedded_methods node attributes. go-6: the
// declarations of a file at the root of a tree with no go.mod above it are
// qualified by its package clause ("main.Server.Serve"), not by "."
// ("..Server.Serve"). go-7: a package owner's Hash is the package's API
// fingerprint, which decides which importers an edit reloads.
const FormatVersion = "go-7"

// Meta keys of Go's records.
const (
	MetaVersion = "index.go.version" // FormatVersion of the last run
	MetaConfig  = "index.go.config"  // hash of every go.mod and go.work: a change forces a full Go run
)

// Lang registers Go. Go is read the way the go command reads it:
// .gitignore does not hide .go files or go.mod (go list reads them), and
// the go command ignores directories whose name starts with "_" (Python
// packages often do, so the walk still enters them). The go.mod files
// (testdata aside) and the root go.work are its configuration: one alone
// makes a Go module, and a change to any runs Go in full (tree.go).
var Lang = frontend.Lang{
	Name: "go", Title: "Go", Version: FormatVersion, VersionKey: MetaVersion, Unit: "packages",
	Files:  "go.mod, go.work or .go files",
	Source: isSource,
	Config: func(rel, base string) bool {
		return base == "go.mod" && !frontend.IsTestdata(rel) && !goIgnored(path.Dir(rel)) || rel == "go.work"
	},
	ConfigPresent: true, Unfiltered: true,
	New: func(env frontend.Env) frontend.Frontend {
		return &indexer{log: env.Log, listTimeout: env.ListTimeout, goProxy: env.GoProxy, cacheDir: env.CacheDir}
	},
}

// isSource reports whether rel is a Go file by the repository's language
// table (internal/repofs), refined as the go command reads: the extension
// in lower case only ("x.GO" is not Go to go list) and no directory on the
// path that the go command ignores.
func isSource(rel, base string) bool {
	lang, _ := repofs.Language(rel)
	return lang == "go" && strings.HasSuffix(base, ".go") && !goIgnored(path.Dir(rel))
}

// goIgnored reports whether the go command ignores rel because a directory
// on its path starts with "_".
func goIgnored(rel string) bool {
	return strings.HasPrefix(rel, "_") || strings.Contains(rel, "/_")
}
