//go:build !cgo

package index

import "github.com/relayhq/relay/index/internal/frontend"

// newJavaFrontend is nil without cgo: javaLang is unavailable
// (sitter.Unavailable), and Run notes its files instead of indexing them.
var newJavaFrontend func(frontend.Env) frontend.Frontend
