package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/prompts"
)

// RetrieveToolName is the planner's one tool: it starts a retriever.
const RetrieveToolName = "retrieve"

var retrieveSpec = openai.Tool{
	Type: openai.ToolTypeFunction,
	Function: &openai.FunctionDefinition{
		Name: RetrieveToolName,
		Description: "Start a retriever sub-agent that explores the repository with grep, glob, read and code-graph tools " +
			"and returns a prose report with path:line citations. Give it one specific task. " +
			`Example: {"query": "Find where SMS sends are retried and what decides that a send failed"}`,
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"one specific retrieval task, naming identifiers, files or error messages when known"}},"required":["query"],"additionalProperties":false}`),
	},
}

// planOutcome is what the planner gathered.
type planOutcome struct {
	reports []*Report
	notes   string // the planner's closing note
	stopped string // why planning ended early ("budget: …", "timeout"), or ""
}

// plan runs the planner loop: it answers retrieve calls by running retrievers
// (several per turn in parallel) until the planner replies without tool calls
// or its step budget is spent. Cancellation of ctx is returned as an error;
// the budget and deadlines end planning with what it has.
func (rn *run) plan(ctx context.Context, text string, question bool) (*planOutcome, error) {
	o := rn.r.o
	rn.progress(Progress{Kind: "stage", Stage: StagePlanner})
	sys, err := prompts.Render(prompts.Planner, prompts.PlannerData{Question: question, MaxParallel: o.Parallel, MaxSteps: o.PlannerMaxSteps})
	if err != nil {
		return nil, err
	}
	kind := "ISSUE"
	if question {
		kind = "QUESTION"
	}
	msgs := []openai.ChatCompletionMessage{systemMsg(sys), userMsg(untrusted(kind, text))}
	out := &planOutcome{}
	const agent = "planner"
	for step := 1; step <= o.PlannerMaxSteps; step++ {
		req := openai.ChatCompletionRequest{Model: o.Models.Planner, Messages: msgs, Tools: []openai.Tool{retrieveSpec}}
		resp, err := rn.chat(ctx, StagePlanner, agent, step, req)
		if err != nil {
			if why := rn.stopReason(ctx, err); why != "" && why != "cancelled" {
				out.stopped = why
				return out, nil
			}
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, fmt.Errorf("planner: model %s returned no choices", req.Model)
		}
		msg := resp.Choices[0].Message
		msg.Role = openai.ChatMessageRoleAssistant
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			out.notes = strings.TrimSpace(msg.Content)
			return out, nil
		}
		contents, reports, err := rn.runRetrievals(ctx, step, msg.ToolCalls)
		if err != nil {
			return nil, err
		}
		for i, c := range msg.ToolCalls {
			msgs = append(msgs, toolMsg(c.ID, contents[i]))
		}
		out.reports = append(out.reports, reports...)
		if ctx.Err() != nil {
			if why := rn.stopReason(ctx, ctx.Err()); why != "cancelled" {
				out.stopped = why
				return out, nil
			}
			return nil, fmt.Errorf("planner: %w", ctx.Err())
		}
		if rn.meter.admit() != nil {
			out.stopped = "budget: " + rn.meter.stopReason()
			return out, nil
		}
	}
	rn.note(StagePlanner, agent, fmt.Sprintf("planner step budget of %d turns spent; going on with %d report(s)", o.PlannerMaxSteps, len(out.reports)))
	return out, nil
}

// runRetrievals answers one planner turn's calls: valid retrieve calls run
// as retrievers, at most Parallel at once, at most MaxToolCallsPerTurn of
// the turn and MaxRetrievers in the run; every call gets exactly one tool
// message, in call order. Reports come back in call order too.
func (rn *run) runRetrievals(ctx context.Context, step int, calls []openai.ToolCall) ([]string, []*Report, error) {
	contents := make([]string, len(calls))
	reps := make([]*Report, len(calls))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(rn.r.o.Parallel)
	o := rn.r.o
	refused := 0
	for i, c := range calls {
		if i >= o.MaxToolCallsPerTurn { // answered, not recorded one by one: the note counts them
			contents[i] = refusedCall(len(calls), o.MaxToolCallsPerTurn)
			refused++
			continue
		}
		rn.tr.record(Event{Type: "tool_call", Stage: StagePlanner, Agent: "planner", Step: step, Tool: c.Function.Name, CallID: c.ID, Args: c.Function.Arguments})
		query, problem := parseRetrieveCall(c)
		switch {
		case problem != "":
		case rn.retrievers.Add(1) > int64(o.MaxRetrievers):
			problem = refusedRetriever(o.MaxRetrievers)
			refused++
		}
		if problem != "" {
			contents[i] = problem
			rn.tr.record(Event{Type: "tool_result", Stage: StagePlanner, Agent: "planner", Step: step, Tool: c.Function.Name, CallID: c.ID, Result: problem, IsError: true})
			continue
		}
		g.Go(func() error {
			rep, err := rn.retrieve(gctx, query)
			if err != nil {
				return err
			}
			reps[i], contents[i] = rep, rep.Text
			rn.tr.record(Event{Type: "tool_result", Stage: StagePlanner, Agent: "planner", Step: step, Tool: c.Function.Name, CallID: c.ID,
				Result: rep.Text, IsError: rep.Incomplete, DurationMS: ms(rep.Duration)})
			return nil
		})
	}
	if refused > 0 {
		rn.note(StagePlanner, "planner", fmt.Sprintf("%d of %d retrieve calls not run (at most %d per turn, %d per run)", refused, len(calls), o.MaxToolCallsPerTurn, o.MaxRetrievers))
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var out []*Report
	for _, r := range reps {
		if r != nil {
			out = append(out, r)
		}
	}
	return contents, out, nil
}

// parseRetrieveCall returns the query of a retrieve call, or a message for
// the model saying what is wrong with the call.
func parseRetrieveCall(c openai.ToolCall) (query, problem string) {
	if c.Function.Name != RetrieveToolName {
		return "", fmt.Sprintf("error: unknown tool %q; valid tools are: %s", c.Function.Name, RetrieveToolName)
	}
	var args struct {
		Query string `json:"query"`
	}
	raw := strings.TrimSpace(c.Function.Arguments)
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return "", fmt.Sprintf(`error: the arguments of retrieve are not a valid JSON object (%v); send {"query": "…"}`, err)
	}
	if strings.TrimSpace(args.Query) == "" {
		return "", `error: retrieve needs a non-empty "query"; send {"query": "one specific retrieval task"}`
	}
	return strings.TrimSpace(args.Query), ""
}
