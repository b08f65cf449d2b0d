package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/tools"
)

// outcome is the single tool message answering one tool call.
type outcome struct {
	content string
	isError bool
}

// toolSet is what one agent may call: a registry plus the schema list sent to
// the model, built once.
type toolSet struct {
	reg   *tools.Registry
	specs []openai.Tool
}

func newToolSet(reg *tools.Registry) *toolSet {
	ts := &toolSet{reg: reg}
	for _, t := range reg.Tools() {
		schema := t.Schema()
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		ts.specs = append(ts.specs, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name(), Description: t.Description(), Parameters: schema},
		})
	}
	return ts
}

// dispatch runs the tool calls of one assistant turn and returns one outcome
// per call, in call order. Only the first MaxToolCallsPerTurn calls run; the
// others' outcome says they were not run. When every call targets a
// read-only tool they run concurrently (at most limit at once); otherwise
// sequentially. A Go error
// from a tool ends the turn: dispatch returns it wrapped, after cancelling
// the calls still running.
func (rn *run) dispatch(ctx context.Context, ts *toolSet, stage Stage, agent string, step int, calls []openai.ToolCall, limit int) ([]outcome, error) {
	out := make([]outcome, len(calls))
	parallel := limit > 1 && len(calls) > 1
	for _, c := range calls[:min(len(calls), rn.r.o.MaxToolCallsPerTurn)] {
		if t, ok := ts.reg.Get(c.Function.Name); ok && !tools.IsReadOnly(t) {
			parallel = false
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	if parallel {
		g.SetLimit(limit)
	} else {
		g.SetLimit(1)
	}
	maxCalls := rn.r.o.MaxToolCallsPerTurn
	if len(calls) > maxCalls {
		rn.note(stage, agent, fmt.Sprintf("%d tool calls in one turn; running the first %d, refusing the rest", len(calls), maxCalls))
	}
	for i, c := range calls {
		if i >= maxCalls { // answered, not recorded one by one: the note counts them
			out[i] = outcome{content: refusedCall(len(calls), maxCalls), isError: true}
			continue
		}
		rn.tr.record(Event{Type: "tool_call", Stage: stage, Agent: agent, Step: step, Tool: c.Function.Name, CallID: c.ID, Args: c.Function.Arguments})
		rn.progress(Progress{Kind: "tool_call", Stage: stage, Agent: agent, Tool: c.Function.Name, Args: c.Function.Arguments})
		g.Go(func() error {
			t0 := time.Now()
			o, err := callTool(gctx, ts.reg, c, rn.r.o.Log)
			if err != nil {
				return fmt.Errorf("tool %s (call %s): %w", c.Function.Name, c.ID, err)
			}
			out[i] = o
			rn.tr.record(Event{Type: "tool_result", Stage: stage, Agent: agent, Step: step, Tool: c.Function.Name, CallID: c.ID,
				Result: o.content, IsError: o.isError, DurationMS: ms(time.Since(t0))})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// callTool answers one call. Only an infrastructure failure of the tool
// itself is a Go error; everything the model did wrong, and cancellation,
// becomes a model-visible outcome.
func callTool(ctx context.Context, reg *tools.Registry, c openai.ToolCall, log *slog.Logger) (o outcome, err error) {
	name := c.Function.Name
	t, ok := reg.Get(name)
	if !ok {
		valid := reg.Names()
		if len(valid) == 0 {
			return outcome{content: fmt.Sprintf("error: unknown tool %q; no tools are available now, write your final answer without calling tools", name), isError: true}, nil
		}
		return outcome{content: fmt.Sprintf("error: unknown tool %q; valid tools are: %s", name, strings.Join(valid, ", ")), isError: true}, nil
	}
	args := strings.TrimSpace(c.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return outcome{content: fmt.Sprintf("error: the arguments of %s are not valid JSON (%.200q); send one JSON object matching the tool's schema: %s", name, args, t.Schema()), isError: true}, nil
	}
	if ctx.Err() != nil {
		return cancelled(ctx), nil
	}
	defer func() {
		if p := recover(); p != nil {
			o = outcome{content: fmt.Sprintf("error: tool %s crashed (%v); try different arguments or another tool", name, p), isError: true}
			err = nil
			log.Error("tool panicked", "tool", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	res, err := t.Call(ctx, json.RawMessage(args))
	if err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx), nil
		}
		return outcome{}, err
	}
	content := res.Content
	if content == "" && !res.IsError {
		content = "(no output)"
	}
	return outcome{content: content, isError: res.IsError}, nil
}

func cancelled(ctx context.Context) outcome {
	why := "the run was cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "the deadline passed"
	}
	return outcome{content: "error: cancelled before this call finished: " + why, isError: true}
}
