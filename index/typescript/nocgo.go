//go:build !cgo

package typescript

import "github.com/relayhq/relay/index/internal/frontend"

// newFrontend is nil without cgo: Lang is unavailable (sitter.Unavailable).
var newFrontend func(frontend.Env) frontend.Frontend
