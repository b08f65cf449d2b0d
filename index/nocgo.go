//go:build !cgo

package index

import "github.com/relayhq/relay/index/internal/frontend"

// Without cgo there is no tree-sitter: the languages parsed with it
// (Python, TypeScript/JavaScript, Java) are registered without a frontend,
// and Run notes their files instead of indexing them.

// sitterUnavailable says why the tree-sitter languages are not indexed.
const sitterUnavailable = "this relay was built without cgo (tree-sitter needs it); build it with CGO_ENABLED=1 and a C compiler to index them"

var (
	newPyFrontend   func(frontend.Env) frontend.Frontend
	newTSFrontend   func(frontend.Env) frontend.Frontend
	newJavaFrontend func(frontend.Env) frontend.Frontend
)
