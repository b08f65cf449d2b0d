package index

import (
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/typescript"
)

// fileLangs are the indexed languages, in the order Run runs them and
// messages list them. Each is registered by its own file (golang_lang.go,
// pylang.go, javalang.go, typescript/lang.go); a language that moves into a package
// of its own keeps one line here.
var fileLangs = []frontend.Lang{goLang, pyLang, javaLang, typescript.Lang}

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
