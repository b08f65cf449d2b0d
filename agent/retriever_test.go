package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/tools"
)

type toolMsg struct{ ID, Content string }

func toolMsgs(req openai.ChatCompletionRequest) []toolMsg {
	var out []toolMsg
	for _, m := range agenttest.ToolMessages(req) {
		out = append(out, toolMsg{m.ToolCallID, m.Content})
	}
	return out
}

func TestRetrieverToolMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		calls []openai.ToolCall
		want  []toolMsg
	}{
		{
			name: "parallel calls answered in call order",
			calls: []openai.ToolCall{
				agenttest.Call("c1", "echo", `{"text":"one"}`),
				agenttest.Call("c2", "echo", `{"text":"two"}`),
				agenttest.Call("c3", "echo", `{"text":"three"}`),
			},
			want: []toolMsg{{"c1", "echo: one"}, {"c2", "echo: two"}, {"c3", "echo: three"}},
		},
		{
			name:  "malformed arguments",
			calls: []openai.ToolCall{agenttest.Call("c1", "echo", `{"text": "unterminated`), agenttest.Call("c2", "echo", `{"text":"ok"}`)},
			want: []toolMsg{
				{"c1", `error: the arguments of echo are not valid JSON ("{\"text\": \"unterminated"); send one JSON object matching the tool's schema: ` + string(echoSchema)},
				{"c2", "echo: ok"},
			},
		},
		{
			name:  "hallucinated tool name",
			calls: []openai.ToolCall{agenttest.Call("c1", "search_web", `{}`)},
			want:  []toolMsg{{"c1", `error: unknown tool "search_web"; valid tools are: echo, panics`}},
		},
		{
			name:  "panicking tool",
			calls: []openai.ToolCall{agenttest.Call("c1", "panics", `{}`)},
			want:  []toolMsg{{"c1", "error: tool panics crashed (boom); try different arguments or another tool"}},
		},
		{
			name:  "empty arguments mean an empty object",
			calls: []openai.ToolCall{agenttest.Call("c1", "echo", ``)},
			want:  []toolMsg{{"c1", "echo: "}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			panics := tools.New("panics", "Always panics.", echoSchema, func(context.Context, echoArgs) (tools.Result, error) { panic("boom") })
			c := agenttest.NewClient(agenttest.Sequence(agenttest.Calls(tc.calls...), agenttest.Text("done: notify/sms.go:12")))
			r := newRunner(t, c, tools.NewRegistry(echoTool("echo"), panics), nil)
			rep, _, err := r.Retrieve(t.Context(), "find Send")
			if err != nil {
				t.Fatal(err)
			}
			reqs := c.Requests()
			if len(reqs) != 2 {
				t.Fatalf("got %d requests, want 2", len(reqs))
			}
			if diff := cmp.Diff(tc.want, toolMsgs(reqs[1])); diff != "" {
				t.Errorf("tool messages (-want +got):\n%s", diff)
			}
			if sys := agenttest.System(reqs[0]); !strings.Contains(sys, "### echo\nEcho the text back.") || agenttest.FirstUser(reqs[0]) != "find Send" {
				t.Errorf("first request: system prompt lacks the tools or the task is not the first user message:\n%s", sys)
			}
			if diff := cmp.Diff([]string{"echo", "panics"}, agenttest.ToolNames(reqs[0])); diff != "" {
				t.Errorf("tools offered (-want +got):\n%s", diff)
			}
			if rep.Text != "done: notify/sms.go:12" || rep.Incomplete || rep.ToolCalls != len(tc.calls) {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

func TestRetrieverRunsReadOnlyToolsConcurrently(t *testing.T) {
	t.Parallel()
	const n = 4
	var inFlight, peak atomic.Int32
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	slow := tools.New("slow", "Waits.", echoSchema, func(ctx context.Context, a echoArgs) (tools.Result, error) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{Content: a.Text}, nil
	})
	go func() {
		for range n {
			<-arrived
		}
		close(release) // only reached when all n calls run at once
	}()
	var calls []openai.ToolCall
	for i := range n {
		calls = append(calls, agenttest.Call(fmt.Sprintf("c%d", i), "slow", fmt.Sprintf(`{"text":"r%d"}`, i)))
	}
	c := agenttest.NewClient(agenttest.Sequence(agenttest.Calls(calls...), agenttest.Text("done")))
	r := newRunner(t, c, tools.NewRegistry(slow), func(o *agent.Options) { o.RetrieverTimeout = 5 * time.Second })
	rep, _, err := r.Retrieve(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Incomplete {
		t.Fatalf("calls did not run concurrently; report: %s", rep.Text)
	}
	if peak.Load() != n {
		t.Errorf("peak concurrency = %d, want %d", peak.Load(), n)
	}
	want := []toolMsg{{"c0", "r0"}, {"c1", "r1"}, {"c2", "r2"}, {"c3", "r3"}}
	if diff := cmp.Diff(want, toolMsgs(c.Requests()[1])); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
}

func TestRetrieverSoftCap(t *testing.T) {
	t.Parallel()
	const synth = "You've explored extensively. Please synthesize your findings into a final report now."
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if len(req.Tools) == 0 {
			return agenttest.Text("final report after cap"), nil
		}
		return agenttest.Calls(agenttest.Call(fmt.Sprintf("c%d", n), "echo", fmt.Sprintf(`{"text":"%d"}`, n))), nil
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), nil) // default soft cap: 20
	rep, _, err := r.Retrieve(t.Context(), "explore")
	if err != nil {
		t.Fatal(err)
	}
	reqs := c.Requests()
	if len(reqs) != 21 {
		t.Fatalf("got %d requests, want 21 (20 with tools, 1 without)", len(reqs))
	}
	for i, req := range reqs[:20] {
		if len(req.Tools) != 1 {
			t.Errorf("request %d offered %d tools, want 1", i+1, len(req.Tools))
		}
	}
	last := reqs[20]
	if len(last.Tools) != 0 {
		t.Errorf("request 21 offered tools %v, want none", agenttest.ToolNames(last))
	}
	if m := agenttest.Last(last); m.Role != openai.ChatMessageRoleUser || m.Content != synth {
		t.Errorf("request 21 last message = %s %q, want user %q", m.Role, m.Content, synth)
	}
	if rep.Text != "final report after cap" || rep.Incomplete || rep.Steps != 21 || rep.ToolCalls != 20 {
		t.Errorf("report = %+v", rep)
	}
}

func TestRetrieverKeepsCallingAfterCap(t *testing.T) {
	t.Parallel()
	// A model that ignores the removal of its tools: every call is still
	// answered, and the retriever stops a few turns later, incomplete.
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		return agenttest.Calls(agenttest.Call(fmt.Sprintf("c%d", n), "echo", `{"text":"again"}`)), nil
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), func(o *agent.Options) { o.RetrieverSoftCap = 2; o.LoopRepeats = 100 })
	rep, _, err := r.Retrieve(t.Context(), "explore")
	if err != nil {
		t.Fatal(err)
	}
	reqs := c.Requests()
	if len(reqs) != 5 {
		t.Fatalf("got %d requests, want 5 (2 with tools + 3 extra turns)", len(reqs))
	}
	got := toolMsgs(reqs[4])
	if len(got) != 4 || !strings.Contains(got[3].Content, "no tools are available now") {
		t.Errorf("calls after the cap were not answered as tool-less: %+v", got)
	}
	if !rep.Incomplete || !strings.Contains(rep.Reason, "soft cap of 2") || !strings.Contains(rep.Text, "[incomplete report:") {
		t.Errorf("report = %+v", rep)
	}
}

func TestRetrieverTimeoutReturnsPartialReport(t *testing.T) {
	t.Parallel()
	block := tools.New("block", "Blocks until cancelled.", echoSchema, func(ctx context.Context, _ echoArgs) (tools.Result, error) {
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	})
	c := agenttest.NewClient(func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if n == 1 {
			r := agenttest.Calls(agenttest.Call("c1", "echo", `{"text":"hi"}`))
			r.Choices[0].Message.Content = "Looking at notify/sms.go first."
			return r, nil
		}
		return agenttest.Calls(agenttest.Call("c2", "block", `{}`)), nil
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo"), block), func(o *agent.Options) { o.RetrieverTimeout = 100 * time.Millisecond })
	start := time.Now()
	rep, _, err := r.Retrieve(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("retriever took %v with a 100ms deadline", d)
	}
	if !rep.Incomplete || rep.Reason != "timeout" {
		t.Fatalf("report incomplete=%v reason=%q, want timeout", rep.Incomplete, rep.Reason)
	}
	for _, want := range []string{"[incomplete report: timeout]", "Looking at notify/sms.go first.", `echo {"text":"hi"}`, "block {}"} {
		if !strings.Contains(rep.Text, want) {
			t.Errorf("partial report lacks %q:\n%s", want, rep.Text)
		}
	}
}

func TestRetrieverEmptyAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		replies        []openai.ChatCompletionResponse
		wantText       string
		wantIncomplete bool
	}{
		{"nudged once then answers", []openai.ChatCompletionResponse{agenttest.Text(""), agenttest.Text("the answer")}, "the answer", false},
		{"empty twice", []openai.ChatCompletionResponse{agenttest.Text("  "), agenttest.Text("")}, "[incomplete report: the model returned an empty answer]", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := agenttest.NewClient(agenttest.Sequence(tc.replies...))
			r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), nil)
			rep, _, err := r.Retrieve(t.Context(), "q")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Text != tc.wantText || rep.Incomplete != tc.wantIncomplete {
				t.Errorf("report text=%q incomplete=%v, want %q %v", rep.Text, rep.Incomplete, tc.wantText, tc.wantIncomplete)
			}
			if m := agenttest.Last(c.Requests()[1]); m.Role != openai.ChatMessageRoleUser || !strings.Contains(m.Content, "empty") {
				t.Errorf("second request does not nudge: %+v", m)
			}
		})
	}
}

func TestRetrieverLoopDetection(t *testing.T) {
	t.Parallel()
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if agenttest.Contains(req, "You are repeating yourself") {
			return agenttest.Text("changed course"), nil
		}
		return agenttest.Calls(agenttest.Call(fmt.Sprintf("c%d", n), "echo", `{"text":"same"}`)), nil
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), nil)
	rep, _, err := r.Retrieve(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	reqs := c.Requests()
	if len(reqs) != 4 {
		t.Fatalf("got %d requests, want 4 (3 identical calls, then steered)", len(reqs))
	}
	last := reqs[3]
	if m := agenttest.Last(last); m.Role != openai.ChatMessageRoleUser || !strings.Contains(m.Content, "echo was called with the same arguments 3 times") {
		t.Errorf("steering message = %+v", m)
	}
	// The steering user message comes after the tool message answering c3.
	msgs := last.Messages
	if prev := msgs[len(msgs)-2]; prev.Role != openai.ChatMessageRoleTool || prev.ToolCallID != "c3" {
		t.Errorf("message before steering = %s %q, want the tool message for c3", prev.Role, prev.ToolCallID)
	}
	if rep.Text != "changed course" {
		t.Errorf("report = %q", rep.Text)
	}
}

func TestRetrieverToolErrorEndsRun(t *testing.T) {
	t.Parallel()
	infra := errors.New("disk on fire")
	broken := tools.New("broken", "Fails.", echoSchema, func(context.Context, echoArgs) (tools.Result, error) { return tools.Result{}, infra })
	modelErr := tools.New("soft", "Model-visible failure.", echoSchema, func(context.Context, echoArgs) (tools.Result, error) {
		return tools.Errorf("no such file: x.go"), nil
	})
	c := agenttest.NewClient(agenttest.Sequence(
		agenttest.Calls(agenttest.Call("c1", "soft", `{}`)),
		agenttest.Calls(agenttest.Call("c2", "broken", `{}`)),
	))
	r := newRunner(t, c, tools.NewRegistry(broken, modelErr), nil)
	_, _, err := r.Retrieve(t.Context(), "q")
	if !errors.Is(err, infra) || !strings.Contains(err.Error(), "tool broken") {
		t.Fatalf("err = %v, want wrapped %v naming the tool", err, infra)
	}
	if got := toolMsgs(c.Requests()[1]); len(got) != 1 || got[0].Content != "no such file: x.go" {
		t.Errorf("IsError result not returned to the model: %+v", got)
	}
}

func TestRetrieverCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	c := agenttest.NewClient(func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		cancel()
		<-ctx.Done()
		return openai.ChatCompletionResponse{}, ctx.Err()
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), nil)
	rep, _, err := r.Retrieve(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Incomplete || rep.Reason != "cancelled" {
		t.Errorf("report incomplete=%v reason=%q, want cancelled", rep.Incomplete, rep.Reason)
	}
}

func TestRetrieverFlagsBadCitations(t *testing.T) {
	t.Parallel()
	text := "Send is at notify/sms.go:12 and retried in notify/retry.go:40; see also notify/sms.go:99."
	c := agenttest.NewClient(agenttest.Sequence(agenttest.Text(text)))
	r := newRunner(t, c, tools.NewRegistry(), nil)
	rep, _, err := r.Retrieve(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Citation{
		{Path: "notify/retry.go", Line: 40, Problem: "no such file"},
		{Path: "notify/sms.go", Line: 99, Problem: "line 99 is past the end; the file has 12 lines"},
	}
	if diff := cmp.Diff(want, rep.BadCitations); diff != "" {
		t.Errorf("bad citations (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(rep.Text, text) || !strings.Contains(rep.Text, "`notify/retry.go:40`: no such file") {
		t.Errorf("report lacks the citation note:\n%s", rep.Text)
	}
}
