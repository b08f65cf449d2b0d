package workspace

import (
	"context"
	"errors"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/prompts"
)

// Localize asks the agent where the fix of problem goes (relay eval
// --agent): the ask pipeline (planner, retrievers, answer writer) with the
// localization prompt; the answer's path:line citations, then the
// retrievers', in order, become the prediction, resolved to functions in
// graph. A run stopped by budget or deadline still scores what it cited.
// It returns the tokens the run used.
func (a *Agent) Localize(ctx context.Context, root string, graph graphdb.Reader, problem string) (eval.Prediction, int64, error) {
	ans, err := a.Ask(ctx, prompts.MustRender(prompts.Localize, prompts.LocalizeData{Problem: problem}))
	if ans == nil {
		if err == nil {
			err = errors.New("the agent returned no answer")
		}
		return eval.Prediction{}, 0, err
	}
	var cites []eval.Cite
	add := func(text string) {
		for _, c := range agent.FindCitations(root, text) {
			if c.Problem == "" {
				cites = append(cites, eval.Cite{Path: c.Path, Line: c.Line, EndLine: c.EndLine})
			}
		}
	}
	add(ans.Markdown)
	for _, r := range ans.Retrievals {
		add(r.Text)
	}
	p, perr := eval.PredictFromCites(ctx, graph, cites)
	return p, ans.Usage.Tokens(), errors.Join(err, perr)
}
