package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/prompts"
)

// Ask runs planner → retrievers → answer writer for one question. Like
// Scope, the budget and deadlines end it with what it has (Stopped set);
// cancellation and infrastructure failures are errors.
func (r *Runner) Ask(ctx context.Context, question string) (*Answer, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("the question is empty")
	}
	rn, err := r.newRun("ask", question)
	if err != nil {
		return nil, err
	}
	a, err := rn.ask(ctx, question)
	stopped := ""
	if a != nil {
		stopped = a.Stopped
	}
	u, cerr := rn.finish(stopped, err)
	if err != nil {
		return nil, errors.Join(err, cerr)
	}
	a.Usage, a.Transcript, a.Duration = u, rn.tr.Path(), rn.elapsed()
	return a, cerr
}

func (rn *run) ask(ctx context.Context, question string) (*Answer, error) {
	p, err := rn.plan(ctx, question, true)
	if err != nil {
		return nil, err
	}
	a := &Answer{RunID: rn.id, Question: question, Retrievals: p.reports, Stopped: p.stopped}
	text := ""
	if a.Stopped == "" {
		rn.progress(Progress{Kind: "stage", Stage: StageAnswer})
		req := openai.ChatCompletionRequest{Model: rn.r.o.Models.Gap, Messages: []openai.ChatCompletionMessage{
			systemMsg(prompts.MustRender(prompts.Answer, nil)),
			userMsg(evidence("Question", question, p)),
		}}
		resp, err := rn.chat(ctx, StageAnswer, "answer", 1, req)
		switch {
		case err != nil:
			stop := rn.stopReason(ctx, err)
			if stop == "" || stop == "cancelled" {
				return nil, err
			}
			a.Stopped = stop
		case len(resp.Choices) > 0:
			text = strings.TrimSpace(resp.Choices[0].Message.Content)
		}
	}
	if text == "" {
		why := "the model returned an empty answer"
		if a.Stopped != "" {
			why = "the run stopped early (" + a.Stopped + ")"
		}
		var b strings.Builder
		b.WriteString("> Note: no written answer: " + why + ". The retriever reports follow.\n")
		if len(p.reports) == 0 {
			b.WriteString("\n_No reports were gathered._\n")
		}
		for i, r := range p.reports {
			fmt.Fprintf(&b, "\n### %d. %s\n\n%s\n", i+1, r.Query, r.Text)
		}
		text = strings.TrimRight(b.String(), "\n")
	} else {
		var sb strings.Builder
		sb.WriteString(text + "\n")
		writeRetrievals(&sb, p.reports)
		text = strings.TrimRight(sb.String(), "\n")
	}
	a.Markdown, a.BadCitations = checkCitations(rn.r.o.Root, text)
	return a, nil
}
