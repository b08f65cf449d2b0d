//go:build !cgo

package index

import (
	"context"
	"fmt"
	"log/slog"
)

// Without cgo there is no tree-sitter: the languages parsed with it are
// unavailable, and Run notes their files instead of indexing them.

const noCgo = "this relay was built without cgo (tree-sitter needs it); build it with CGO_ENABLED=1 and a C compiler to index them"

// pyFrontend stands in for the tree-sitter Python frontend: it notes the
// Python files and indexes nothing.
type pyFrontend struct {
	log *slog.Logger
}

func (p *pyFrontend) language() string { return "python" }

func (p *pyFrontend) index(_ context.Context, j *job, _ func(fileResult)) (done, error) {
	if len(j.files) > 0 {
		j.note(Diagnostic{Msg: fmt.Sprintf("%d Python files not indexed: %s", len(j.files), noCgo)})
	}
	return done{}, nil
}

// Registered in the order the cgo build's init functions run (java.go
// before ts.go), so that messages list the languages alike.
func init() {
	registerJava(nil, noCgo)
	registerTS(nil, noCgo)
}
