package main

import (
	"context"
	"errors"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/prompts"
)

// evalLocalizer is relay eval --agent's localizer: the ask pipeline
// (planner, retrievers, answer writer) asked where the fix goes; the
// answer's path:line citations, then the retrievers', in order, become the
// prediction. A run stopped by budget or deadline still scores what it
// cited.
func (f *llmFlags) evalLocalizer(g *globals) eval.AgentLocalizer {
	return func(ctx context.Context, root string, graph graphdb.Reader, problem string) (eval.Prediction, int64, error) {
		sess, err := f.newAgentOn(ctx, g, root, graph, nil)
		if err != nil {
			return eval.Prediction{}, 0, err
		}
		defer sess.Close()
		ctx, cancel := f.runContext(ctx)
		defer cancel()
		a, err := sess.runner.Ask(ctx, prompts.MustRender(prompts.Localize, prompts.LocalizeData{Problem: problem}))
		if a == nil {
			if err == nil {
				err = errors.New("the agent returned no answer")
			}
			return eval.Prediction{}, 0, sess.explain(err)
		}
		var cites []eval.Cite
		add := func(text string) {
			for _, c := range agent.FindCitations(root, text) {
				if c.Problem == "" {
					cites = append(cites, eval.Cite{Path: c.Path, Line: c.Line, EndLine: c.EndLine})
				}
			}
		}
		add(a.Markdown)
		for _, r := range a.Retrievals {
			add(r.Text)
		}
		p, perr := eval.PredictFromCites(ctx, graph, cites)
		return p, a.Usage.Tokens(), errors.Join(err, perr)
	}
}
