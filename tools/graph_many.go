package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// AnswerGraphTargets is AnswerGraph over one or more targets: several are
// allowed for blast_radius only, which resolves each and computes one
// blast radius for all of them (the target named by their qualified
// names, joined). Errors are AnswerGraph's.
func AnswerGraphTargets(ctx context.Context, r graphdb.Reader, operation string, targets []string, depth int) (GraphAnswer, error) {
	if len(targets) <= 1 {
		return AnswerGraph(ctx, r, operation, strings.Join(targets, ""), depth)
	}
	op, err := ParseGraphOp(operation)
	if err != nil {
		return GraphAnswer{}, err
	}
	if op != OpBlastRadius {
		return GraphAnswer{}, &GraphInputError{Msg: fmt.Sprintf("%s takes exactly one target (got %d)", op, len(targets))}
	}
	var ids []graphdb.NodeID
	var qnames []string
	var first graphdb.Node
	for i, t := range targets {
		n, err := ResolveTarget(ctx, r, t)
		if err != nil {
			return GraphAnswer{}, err
		}
		if i == 0 {
			first = n
		}
		ids = append(ids, n.ID)
		qnames = append(qnames, n.QName)
	}
	b, err := graphdb.BlastRadius(ctx, r, ids, depth)
	if err != nil {
		return GraphAnswer{}, err
	}
	first.QName = strings.Join(qnames, ", ")
	return GraphAnswer{Operation: OpBlastRadius, Target: first, Depth: b.MaxDepth, Blast: &b}, nil
}
