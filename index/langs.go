package index

import (
	"github.com/relayhq/relay/index/internal/frontend"
)

// fileLangs are the indexed languages, in the order Run runs them and
// messages list them. Each is registered by a file of its own
// (golang_lang.go, pylang.go, javalang.go, tslang.go), which holds the
// language's record, or takes it from the language's package
// (typescript.Lang), with the package's public names.
var fileLangs = []frontend.Lang{goLang, pyLang, javaLang, tsLang}

// fileLangOf returns the index in fileLangs of the language whose source
// rel is, or -1.
func fileLangOf(rel, base string) int {
	for i, l := range fileLangs {
		if l.Source(rel, base) {
			return i
		}
	}
	return -1
}
