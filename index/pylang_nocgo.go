//go:build !cgo

package index

import "github.com/relayhq/relay/index/internal/frontend"

// newPyFrontend is nil without cgo: pyLang is unavailable
// (sitter.Unavailable), and Run notes its files instead of indexing them.
var newPyFrontend func(frontend.Env) frontend.Frontend
