package eval

import (
	"context"
	"fmt"

	"github.com/relayhq/relay/graphdb"
)

// MethodAgent is the model-driven localizer (relay eval --agent).
const MethodAgent = "relay-agent"

// AgentLocalizer localizes a problem statement in the checkout at root with
// a model; it returns the prediction and the tokens the model used.
type AgentLocalizer func(ctx context.Context, root string, g graphdb.Reader, problem string) (Prediction, int64, error)

// Cite is a path:line (EndLine 0) or path:start-end location a model cited;
// Path is relative to the checkout.
type Cite struct {
	Path    string
	Line    int
	EndLine int
}

// PredictFromCites turns cited locations, most relevant first, into a
// prediction: files in order of first citation, and for each citation the
// innermost function or method declared around its first line, by its
// location name. Citations of unknown files or of lines outside every
// function still rank their file.
func PredictFromCites(ctx context.Context, g graphdb.Reader, cites []Cite) (Prediction, error) {
	var p Prediction
	seenFile, seenFn := map[string]bool{}, map[string]bool{}
	decls := map[string][]graphdb.Node{}
	for _, c := range cites {
		if c.Path == "" {
			continue
		}
		if !seenFile[c.Path] {
			seenFile[c.Path] = true
			p.Files = append(p.Files, c.Path)
		}
		ns, ok := decls[c.Path]
		if !ok && g != nil {
			var err error
			ns, err = g.FindSymbols(ctx, graphdb.SymbolQuery{File: c.Path, Kinds: []graphdb.NodeKind{graphdb.KindFunction, graphdb.KindMember}})
			if err != nil {
				return Prediction{}, fmt.Errorf("symbols of %s: %w", c.Path, err)
			}
			decls[c.Path] = ns
		}
		var best *graphdb.Node
		for i := range ns {
			n := &ns[i]
			if n.Loc == "" || n.SubKind == "field" || n.Synthetic() || c.Line < n.StartLine || c.Line > max(n.EndLine, n.StartLine) {
				continue
			}
			if best == nil || n.EndLine-n.StartLine < best.EndLine-best.StartLine {
				best = n
			}
		}
		if best != nil && !seenFn[best.Loc] {
			seenFn[best.Loc] = true
			p.Functions = append(p.Functions, best.Loc)
		}
	}
	return p, nil
}
