//go:build !cgo

package index

import "github.com/relayhq/relay/index/internal/frontend"

// Without cgo there is no tree-sitter: the languages parsed with it are
// registered without a frontend (sitter.Unavailable says why), and Run
// notes their files instead of indexing them.
var (
	newPyFrontend   func(frontend.Env) frontend.Frontend
	newJavaFrontend func(frontend.Env) frontend.Frontend
)
