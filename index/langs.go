package index

import (
	"github.com/relayhq/relay/index/c"
	"github.com/relayhq/relay/index/cpp"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/java"
	"github.com/relayhq/relay/index/python"
	"github.com/relayhq/relay/index/rust"
	"github.com/relayhq/relay/index/typescript"
)

// fileLangs are the indexed languages, in the order Run runs them and
// messages list them: the one list of them. A language is a package of its
// own holding its frontend and its registration record (Lang: name, format
// version and its Meta key, the files it claims, its constructor or why it
// is unavailable in this build); adding one is a package and a line here.
var fileLangs = []frontend.Lang{golang.Lang, python.Lang, java.Lang, typescript.Lang,
	c.Lang, cpp.Lang, rust.Lang}

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

// RunGoShim must be called first in main by programs that run Run: see
// golang.RunGoShim.
func RunGoShim() { golang.RunGoShim() }
