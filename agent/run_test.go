package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/tools"
)

const validScope = `{"summary":"SMS sends are retried on slow answers.","established":["Send at notify/sms.go:12"],"unknowns":[],
"edge_cases":["provider answers after the timeout"],"risks":["lost messages"],"affected_components":[{"name":"notify.Send","path":"notify/sms.go:12","reason":"retries"}],
"open_questions":["which provider?"],"size":"m","size_rationale":"one package"}`

// scriptedModel plays planner, retrievers and gap detector, routing on the
// model name. The planner asks for queries in one turn, then stops; each
// retriever echoes once then reports; the gap detector replies gap().
type scriptedModel struct {
	queries []string
	gap     func(req openai.ChatCompletionRequest, n int) agenttest.Reply
	barrier *barrier // when set, first retriever turns wait for each other
}

func (m *scriptedModel) handle(req openai.ChatCompletionRequest, n int) agenttest.Reply {
	switch req.Model {
	case "planner-model":
		if len(agenttest.ToolMessages(req)) > 0 {
			return agenttest.OK(agenttest.Text("The reports cover it."))
		}
		var calls []openai.ToolCall
		for i, q := range m.queries {
			calls = append(calls, agenttest.Call(fmt.Sprintf("p%d", i), "retrieve", agenttest.Args(map[string]string{"query": q})))
		}
		return agenttest.OK(agenttest.Calls(calls...))
	case "retriever-model":
		q := agenttest.FirstUser(req)
		if agenttest.Turns(req) == 0 {
			if m.barrier != nil && !m.barrier.wait(5*time.Second) {
				return agenttest.Error(500, "retrievers did not run in parallel")
			}
			return agenttest.OK(agenttest.Calls(agenttest.Call("r-"+q, "echo", agenttest.Args(map[string]string{"text": q}))))
		}
		return agenttest.OK(agenttest.Text("Report for " + q + ": Send is at notify/sms.go:12."))
	case "gap-model", "answer-model":
		return m.gap(req, n)
	}
	return agenttest.Error(404, "unknown model "+req.Model)
}

// barrier releases its waiters once n have arrived.
type barrier struct {
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, done: make(chan struct{})} }

func (b *barrier) wait(d time.Duration) bool {
	b.mu.Lock()
	b.n--
	if b.n == 0 {
		close(b.done)
	}
	b.mu.Unlock()
	select {
	case <-b.done:
		return true
	case <-time.After(d):
		return false
	}
}

func startModel(t *testing.T, m *scriptedModel) (*agenttest.Server, agent.ChatClient) {
	srv := agenttest.NewServer(m.handle)
	t.Cleanup(srv.Close)
	return srv, agent.NewRetryClient(realClient(srv), agent.RetryOptions{Sleep: func(context.Context, time.Duration) error { return nil }})
}

// checkToolPairing asserts that in every request each assistant tool call is
// answered by exactly one tool message before the next assistant message.
func checkToolPairing(t *testing.T, reqs []openai.ChatCompletionRequest) {
	t.Helper()
	for ri, req := range reqs {
		pending := map[string]int{}
		flush := func() {
			for id, n := range pending {
				if n != 1 {
					t.Errorf("request %d: tool call %s answered %d times", ri+1, id, n)
				}
			}
			clear(pending)
		}
		for _, msg := range req.Messages {
			switch msg.Role {
			case openai.ChatMessageRoleAssistant:
				flush()
				for _, c := range msg.ToolCalls {
					pending[c.ID] = 0
				}
			case openai.ChatMessageRoleTool:
				if _, ok := pending[msg.ToolCallID]; !ok {
					t.Errorf("request %d: tool message for unknown call %s", ri+1, msg.ToolCallID)
				}
				pending[msg.ToolCallID]++
			}
		}
		flush()
	}
}

func readTranscript(t *testing.T, path string) []agent.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []agent.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e agent.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("transcript line %d: %v", len(evs)+1, err)
		}
		evs = append(evs, e)
	}
	return evs
}

func TestScopeWholeRun(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{
		queries: []string{"where are SMS sent", "what retries them"},
		barrier: newBarrier(2),
		gap: func(req openai.ChatCompletionRequest, _ int) agenttest.Reply {
			if req.ResponseFormat == nil || req.ResponseFormat.Type != openai.ChatCompletionResponseFormatTypeJSONObject {
				return agenttest.Error(400, "want json mode")
			}
			return agenttest.OK(agenttest.Text(validScope))
		},
	}
	srv, client := startModel(t, m)
	runs := t.TempDir()
	r := newRunner(t, client, tools.NewRegistry(echoTool("echo")), func(o *agent.Options) {
		o.RunsDir = runs
		o.Prices = map[string]agent.Price{"planner-model": {In: 1, Out: 2}, "retriever-model": {In: 1, Out: 2}, "gap-model": {In: 10, Out: 20}}
	})
	s, err := r.Scope(t.Context(), "# SMS sent twice\n\nCustomers get two texts.")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Structured || s.Report == nil || s.Report.Size != "M" || s.Stopped != "" {
		t.Fatalf("scoping = %+v", s)
	}
	var queries []string
	for _, rep := range s.Retrievals {
		queries = append(queries, rep.Query)
	}
	if diff := cmp.Diff(m.queries, queries); diff != "" {
		t.Errorf("retrievals (-want +got):\n%s", diff)
	}
	for _, want := range []string{"# Scoping: SMS sent twice", "**Size:** M — one package", "## Edge cases\n\n- provider answers after the timeout",
		"| notify.Send | notify/sms.go:12 | retries |", "## Retrievals\n\n1. where are SMS sent (2 turns, 1 tool calls)"} {
		if !strings.Contains(s.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, s.Markdown)
		}
	}
	if len(s.BadCitations) != 0 {
		t.Errorf("bad citations: %v", s.BadCitations)
	}
	reqs := srv.Requests()
	checkToolPairing(t, reqs)
	// Planner 2 calls, retrievers 2×2, gap 1; 10 prompt + 5 completion tokens each.
	wantUsage := []agent.StageUsage{
		{Stage: agent.StagePlanner, Calls: 2, PromptTokens: 20, CompletionTokens: 10, Cost: 40e-6},
		{Stage: agent.StageRetriever, Calls: 4, PromptTokens: 40, CompletionTokens: 20, Cost: 80e-6},
		{Stage: agent.StageGap, Calls: 1, PromptTokens: 10, CompletionTokens: 5, Cost: 200e-6},
	}
	if diff := cmp.Diff(wantUsage, s.Usage.Stages, cmp.Comparer(func(a, b float64) bool { return fmt.Sprintf("%.9f", a) == fmt.Sprintf("%.9f", b) }),
		cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Time" }, cmp.Ignore())); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if s.Usage.Tokens() != 105 || !s.Usage.Priced {
		t.Errorf("usage total = %d tokens priced=%v, want 105 priced", s.Usage.Tokens(), s.Usage.Priced)
	}
	// The gap detector saw the issue and both reports.
	gapReq := reqs[len(reqs)-1]
	for _, want := range []string{"Customers get two texts.", "## Report 1: where are SMS sent", "Report for what retries them"} {
		if !agenttest.Contains(gapReq, want) {
			t.Errorf("gap request lacks %q", want)
		}
	}
	// Transcript.
	wantPath := filepath.Join(runs, "20260102T030405Z-run1.jsonl")
	if s.Transcript != wantPath {
		t.Errorf("transcript = %q, want %q", s.Transcript, wantPath)
	}
	evs := readTranscript(t, wantPath)
	counts := map[string]int{}
	for i, e := range evs {
		counts[e.Type]++
		if e.Run != "run1" || e.Seq != int64(i+1) {
			t.Errorf("event %d: run=%q seq=%d", i, e.Run, e.Seq)
		}
	}
	wantCounts := map[string]int{"run_start": 1, "request": 7, "response": 7, "tool_call": 4, "tool_result": 4, "run_end": 1}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("transcript event counts (-want +got):\n%s", diff)
	}
	if last := evs[len(evs)-1]; last.Usage == nil || last.Usage.Tokens() != 105 {
		t.Errorf("run_end usage = %+v", last.Usage)
	}
	var agents []string
	for _, e := range evs {
		if e.Type == "response" && e.Stage == agent.StageRetriever && e.PromptTokens != 10 {
			t.Errorf("response event tokens = %d", e.PromptTokens)
		}
		if e.Type == "request" {
			agents = append(agents, e.Agent)
		}
	}
	if agents[0] != "planner" || agents[len(agents)-1] != "gap" {
		t.Errorf("request agents = %v", agents)
	}
}

func TestScopeGapDetectorOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		replies        []agenttest.Reply
		wantStructured bool
		wantGapReqs    int
		wantMarkdown   string
	}{
		{"garbage then valid", []agenttest.Reply{agenttest.OK(agenttest.Text("Sure! Here it is")), agenttest.OK(agenttest.Text(validScope))}, true, 2, "## Summary"},
		{"fenced JSON", []agenttest.Reply{agenttest.OK(agenttest.Text("```json\n" + validScope + "\n```"))}, true, 1, "## Summary"},
		{"garbage twice falls back", []agenttest.Reply{agenttest.OK(agenttest.Text("I think it is in sms.go")), agenttest.OK(agenttest.Text(`{"summary":"x"}`))}, false, 2,
			"> Note: markdown-only report, not a structured scoping report: the model did not return a valid structured report (missing field(s) established"},
		{"bad size falls back", []agenttest.Reply{agenttest.OK(agenttest.Text(strings.Replace(validScope, `"m"`, `"huge"`, 1))), agenttest.OK(agenttest.Text("no"))}, false, 2,
			"## Gap detector's reply\n\nno"},
		{"json mode rejected", []agenttest.Reply{agenttest.Error(400, "response_format is not supported"), agenttest.OK(agenttest.Text(validScope))}, true, 2, "## Summary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var gapReqs []openai.ChatCompletionRequest
			var mu sync.Mutex
			m := &scriptedModel{queries: []string{"q"}, gap: func(req openai.ChatCompletionRequest, _ int) agenttest.Reply {
				mu.Lock()
				defer mu.Unlock()
				gapReqs = append(gapReqs, req)
				return tc.replies[len(gapReqs)-1]
			}}
			_, client := startModel(t, m)
			r := newRunner(t, client, tools.NewRegistry(echoTool("echo")), nil)
			s, err := r.Scope(t.Context(), "issue")
			if err != nil {
				t.Fatal(err)
			}
			if s.Structured != tc.wantStructured || (s.Report != nil) != tc.wantStructured {
				t.Errorf("structured = %v report=%v, want %v", s.Structured, s.Report != nil, tc.wantStructured)
			}
			if len(gapReqs) != tc.wantGapReqs {
				t.Errorf("gap requests = %d, want %d", len(gapReqs), tc.wantGapReqs)
			}
			if !strings.Contains(s.Markdown, tc.wantMarkdown) {
				t.Errorf("markdown lacks %q:\n%s", tc.wantMarkdown, s.Markdown)
			}
			if !tc.wantStructured && !strings.Contains(s.Markdown, "Report for q") {
				t.Errorf("fallback markdown lacks the retriever report:\n%s", s.Markdown)
			}
		})
	}
}

func TestScopeBudgetExceeded(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{queries: []string{"a", "b"}, gap: func(openai.ChatCompletionRequest, int) agenttest.Reply {
		return agenttest.Error(500, "the gap detector must not be called")
	}}
	srv, client := startModel(t, m)
	runs := t.TempDir()
	r := newRunner(t, client, tools.NewRegistry(echoTool("echo")), func(o *agent.Options) {
		o.Budget = agent.Budget{MaxTokens: 40}
		o.Parallel = 1 // deterministic: planner 15, retriever a 15 → 30, retriever a 15 → 45 ≥ 40
		o.RunsDir = runs
	})
	s, err := r.Scope(t.Context(), "issue")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Stopped, "budget: token budget 40 reached (45 tokens used)") {
		t.Errorf("stopped = %q", s.Stopped)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("server saw %d requests, want 3 (no call after the budget is spent)", got)
	}
	if s.Structured || !strings.Contains(s.Markdown, "the run stopped early (budget: token budget 40 reached (45 tokens used)") {
		t.Errorf("markdown does not say the budget stopped it:\n%s", s.Markdown)
	}
	if len(s.Retrievals) != 2 || s.Retrievals[0].Incomplete || !s.Retrievals[1].Incomplete {
		t.Errorf("retrievals = %+v", s.Retrievals)
	}
	evs := readTranscript(t, s.Transcript)
	if last := evs[len(evs)-1]; last.Type != "run_end" || !strings.HasPrefix(last.Text, "budget:") {
		t.Errorf("run_end = %+v", last)
	}
}

func TestScopeCostBudget(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{queries: []string{"a"}, gap: func(openai.ChatCompletionRequest, int) agenttest.Reply {
		return agenttest.OK(agenttest.Text(validScope))
	}}
	srv, client := startModel(t, m)
	r := newRunner(t, client, tools.NewRegistry(echoTool("echo")), func(o *agent.Options) {
		o.Budget = agent.Budget{MaxCost: 0.5}
		o.Prices = map[string]agent.Price{"planner-model": {In: 50000, Out: 0}} // 10 prompt tokens → 0.5
	})
	s, err := r.Scope(t.Context(), "issue")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Stopped, "budget: cost budget 0.5000 reached (cost 0.5000)") || len(srv.Requests()) != 1 {
		t.Errorf("stopped = %q after %d requests", s.Stopped, len(srv.Requests()))
	}
}

func TestPlannerAnswersBadCalls(t *testing.T) {
	t.Parallel()
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		switch req.Model {
		case "planner-model":
			if agenttest.Turns(req) == 0 {
				return agenttest.Calls(
					agenttest.Call("a", "grep", `{"pattern":"x"}`),
					agenttest.Call("b", "retrieve", `{"query": `),
					agenttest.Call("c", "retrieve", `{"q":"x"}`),
					agenttest.Call("d", "retrieve", `{"query":"real"}`),
				), nil
			}
			return agenttest.Text("done"), nil
		case "retriever-model":
			return agenttest.Text("found it"), nil
		}
		return agenttest.Text(validScope), nil
	})
	r := newRunner(t, c, tools.NewRegistry(echoTool("echo")), nil)
	s, err := r.Scope(t.Context(), "issue")
	if err != nil {
		t.Fatal(err)
	}
	var second openai.ChatCompletionRequest
	for _, req := range c.Requests() {
		if req.Model == "planner-model" && agenttest.Turns(req) == 1 {
			second = req
		}
	}
	if diff := cmp.Diff([]string{"retrieve"}, agenttest.ToolNames(second)); diff != "" {
		t.Errorf("planner tools (-want +got):\n%s", diff)
	}
	got := toolMsgs(second)
	want := []toolMsg{
		{"a", `error: unknown tool "grep"; valid tools are: retrieve`},
		{"b", `error: the arguments of retrieve are not a valid JSON object (unexpected end of JSON input); send {"query": "…"}`},
		{"c", `error: retrieve needs a non-empty "query"; send {"query": "one specific retrieval task"}`},
		{"d", "found it"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planner tool messages (-want +got):\n%s", diff)
	}
	if len(s.Retrievals) != 1 {
		t.Errorf("retrievals = %d, want 1", len(s.Retrievals))
	}
}

func TestPlannerStepBudget(t *testing.T) {
	t.Parallel()
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		switch req.Model {
		case "planner-model":
			return agenttest.Calls(agenttest.Call(fmt.Sprint("p", n), "retrieve", fmt.Sprintf(`{"query":"q%d"}`, n))), nil
		case "retriever-model":
			return agenttest.Text("report"), nil
		}
		return agenttest.Text(validScope), nil
	})
	r := newRunner(t, c, tools.NewRegistry(), func(o *agent.Options) { o.PlannerMaxSteps = 3 })
	s, err := r.Scope(t.Context(), "issue")
	if err != nil {
		t.Fatal(err)
	}
	planner := 0
	for _, req := range c.Requests() {
		if req.Model == "planner-model" {
			planner++
		}
	}
	if planner != 3 || len(s.Retrievals) != 3 || !s.Structured {
		t.Errorf("planner calls = %d, retrievals = %d, structured = %v; want 3, 3, true", planner, len(s.Retrievals), s.Structured)
	}
}

func TestScopeCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	c := agenttest.NewClient(func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if req.Model == "planner-model" {
			return agenttest.Calls(agenttest.Call("p", "retrieve", `{"query":"q"}`)), nil
		}
		cancel()
		<-ctx.Done()
		return openai.ChatCompletionResponse{}, ctx.Err()
	})
	runs := t.TempDir()
	r := newRunner(t, c, tools.NewRegistry(), func(o *agent.Options) { o.RunsDir = runs })
	s, err := r.Scope(ctx, "issue")
	if !errors.Is(err, context.Canceled) || s != nil {
		t.Fatalf("Scope = %v, %v; want nil, context.Canceled", s, err)
	}
	evs := readTranscript(t, filepath.Join(runs, "20260102T030405Z-run1.jsonl"))
	if last := evs[len(evs)-1]; last.Type != "run_end" || !strings.Contains(last.Error, "context canceled") {
		t.Errorf("run_end = %+v", last)
	}
}

func TestScopeRunDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	c := agenttest.NewClient(func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if req.Model == "planner-model" {
			return agenttest.Calls(agenttest.Call("p", "retrieve", `{"query":"q"}`)), nil
		}
		<-ctx.Done()
		return openai.ChatCompletionResponse{}, ctx.Err()
	})
	r := newRunner(t, c, tools.NewRegistry(), nil)
	s, err := r.Scope(ctx, "issue")
	if err != nil {
		t.Fatal(err)
	}
	if s.Stopped != "timeout" || !s.Retrievals[0].Incomplete || !strings.Contains(s.Markdown, "stopped early (timeout)") {
		t.Errorf("stopped = %q, markdown:\n%s", s.Stopped, s.Markdown)
	}
}

// TestScopeRequestTimeoutIsError: a model request that times out on its own
// (the HTTP client's timeout, the run's context still live) is an endpoint
// failure like a 500, not a run that "stopped early" with nothing in it.
func TestScopeRequestTimeoutIsError(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(func(openai.ChatCompletionRequest, int) agenttest.Reply {
		return agenttest.Reply{Delay: time.Minute}
	})
	t.Cleanup(srv.Close)
	client := agent.NewOpenAIClient(srv.URL()+"/v1", "test", &http.Client{Timeout: 100 * time.Millisecond})
	r := newRunner(t, agent.NewRetryClient(client, agent.RetryOptions{MaxAttempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}), tools.NewRegistry(), nil)
	s, err := r.Scope(t.Context(), "issue")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || s != nil {
		t.Fatalf("Scope = %+v, %v; want no scoping and a deadline error", s, err)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2 (the timeout is retried)", got)
	}
}

func TestAsk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		answer     agenttest.Reply
		wantPrefix string
		wantBad    []agent.Citation
	}{
		{
			name:       "answer with a bad citation",
			answer:     agenttest.OK(agenttest.Text("Send lives at notify/sms.go:12, called from api/api.go:3.")),
			wantPrefix: "Send lives at notify/sms.go:12, called from api/api.go:3.\n\n## Retrievals",
			wantBad:    []agent.Citation{{Path: "api/api.go", Line: 3, Problem: "no such file"}},
		},
		{
			name:       "empty answer falls back to the reports",
			answer:     agenttest.OK(agenttest.Text("")),
			wantPrefix: "> Note: no written answer: the model returned an empty answer. The retriever reports follow.\n\n### 1. where is Send\n\nReport for where is Send",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{queries: []string{"where is Send"}, gap: func(req openai.ChatCompletionRequest, _ int) agenttest.Reply {
				if req.ResponseFormat != nil {
					return agenttest.Error(400, "answers are prose")
				}
				return tc.answer
			}}
			_, client := startModel(t, m)
			r := newRunner(t, client, tools.NewRegistry(echoTool("echo")), func(o *agent.Options) { o.Models.Gap = "answer-model" })
			a, err := r.Ask(t.Context(), "Where is Send?")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(a.Markdown, tc.wantPrefix) {
				t.Errorf("answer:\n%s\nwant prefix:\n%s", a.Markdown, tc.wantPrefix)
			}
			if diff := cmp.Diff(tc.wantBad, a.BadCitations); diff != "" {
				t.Errorf("bad citations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	c := agenttest.NewClient(agenttest.Sequence())
	tests := []struct {
		name string
		o    agent.Options
		want string
	}{
		{"no client", agent.Options{Root: "/", Models: agent.Models{Planner: "m"}}, "Client is nil"},
		{"no root", agent.Options{Client: c, Models: agent.Models{Planner: "m"}}, "Root is empty"},
		{"no model", agent.Options{Client: c, Root: "/"}, "Options.Models.Planner is empty: no model configured"},
	}
	for _, tc := range tests {
		_, err := agent.New(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		// The library names its own options, never a flag or variable of the CLI.
		if err != nil && (strings.Contains(err.Error(), "--") || strings.Contains(err.Error(), "RELAY_")) {
			t.Errorf("%s: err = %v names the CLI", tc.name, err)
		}
	}
	if _, err := agent.New(agent.Options{Client: c, Root: "/"}); !errors.Is(err, agent.ErrNoModel) {
		t.Errorf("no model: err = %v, want ErrNoModel", err)
	}
	r, _ := agent.New(agent.Options{Client: c, Root: "/", Models: agent.Models{Planner: "m"}})
	if _, err := r.Scope(t.Context(), "  "); !errors.Is(err, agent.ErrEmptyIssue) || strings.Contains(err.Error(), "--file") {
		t.Errorf("empty issue: err = %v, want ErrEmptyIssue without the CLI's advice", err)
	}
}

// TestScopeFailedRunUsage: a run that fails after the planner answered
// says in its error (*agent.FailedRun) what it used, so a cost budget can
// charge it; it returned a bare error and the usage was lost.
func TestScopeFailedRunUsage(t *testing.T) {
	t.Parallel()
	c := agenttest.NewClient(func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if req.Model == "planner-model" {
			resp := agenttest.Calls(agenttest.Call("p", "retrieve", `{"query":"q"}`))
			resp.Usage = openai.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}
			return resp, nil
		}
		return openai.ChatCompletionResponse{}, errors.New("the endpoint failed")
	})
	r := newRunner(t, c, tools.NewRegistry(), func(o *agent.Options) {
		o.Prices = map[string]agent.Price{"planner-model": {In: 50000, Out: 0}} // 10 prompt tokens → 0.5
	})
	s, err := r.Scope(t.Context(), "issue")
	var failed *agent.FailedRun
	if s != nil || !errors.As(err, &failed) || !strings.Contains(err.Error(), "the endpoint failed") {
		t.Fatalf("Scope = %v, %v; want nil and a *agent.FailedRun", s, err)
	}
	if failed.Usage.Cost != 0.5 || failed.Usage.PromptTokens != 10 {
		t.Errorf("usage = %+v; want the planner's 10 prompt tokens, cost 0.5", failed.Usage)
	}
}
