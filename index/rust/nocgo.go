//go:build !cgo

package rust

import "github.com/relayhq/relay/index/internal/frontend"

// newFrontend is nil without cgo: Lang is unavailable
// (sitter.Unavailable), and package index's Run notes its files instead of indexing them.
var newFrontend func(frontend.Env) frontend.Frontend
