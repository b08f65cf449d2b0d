package main

import (
	"context"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
)

// evalLocalizer is relay eval --agent's localizer: the agent of the model
// flags on each checkout, asked where the fix goes (workspace's
// Agent.Localize).
func (f *llmFlags) evalLocalizer(g *globals) eval.AgentLocalizer {
	return func(ctx context.Context, root string, graph graphdb.Reader, problem string) (eval.Prediction, int64, error) {
		sess, err := f.newAgentOn(ctx, g, root, graph, nil)
		if err != nil {
			return eval.Prediction{}, 0, err
		}
		defer sess.Close()
		ctx, cancel := f.runContext(ctx)
		defer cancel()
		p, tokens, err := sess.Localize(ctx, root, graph, problem)
		return p, tokens, sess.Explain(err)
	}
}
