package index

import (
	"path"
	"strings"
)

// fileLangs are the indexed languages, in the order Run runs them and
// messages list them. Each is registered by its own file (golang.go,
// pylang.go, javalang.go, tslang.go).
var fileLangs = []fileLang{goLang, pyLang, javaLang, tsLang}

// goLang registers Go. Go is read the way the go command reads it:
// .gitignore does not hide .go files or go.mod (go list reads them), and
// the go command ignores directories whose name starts with "_" (Python
// packages often do, so the walk still enters them). The go.mod files
// (testdata aside) and the root go.work are its configuration: one alone
// makes a Go module, and a change to any runs Go in full (goprepare.go).
var goLang = fileLang{
	name: "go", title: "Go", version: FormatVersion, versionKey: MetaVersion, unit: "packages",
	files: "go.mod, go.work or .go files",
	source: func(rel, base string) bool {
		return strings.HasSuffix(base, ".go") && !goIgnored(path.Dir(rel))
	},
	config: func(rel, base string) bool {
		return base == "go.mod" && !isTestdata(rel) && !goIgnored(path.Dir(rel)) || rel == "go.work"
	},
	configPresent: true, unfiltered: true,
	newFrontend: func(env feEnv) frontend {
		return &goFrontend{log: env.log, listTimeout: env.listTimeout, goProxy: env.goProxy}
	},
}

// goIgnored reports whether the go command ignores rel because a directory
// on its path starts with "_".
func goIgnored(rel string) bool {
	return strings.HasPrefix(rel, "_") || strings.Contains(rel, "/_")
}

// pyLang registers Python, parsed with tree-sitter (python.go).
var pyLang = fileLang{
	name: "python", title: "Python", version: PyFormatVersion, versionKey: MetaPyVersion, unit: "modules",
	files:  ".py files",
	source: func(_, base string) bool { return strings.HasSuffix(base, ".py") },
	config: func(_, _ string) bool { return false }, budgeted: true,
	newFrontend: newPyFrontend, unavailable: sitterUnavailable,
}
