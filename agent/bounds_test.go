package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/tools"
)

// calls returns n calls of tool named prefix0…prefix(n-1) with args.
func calls(n int, prefix, tool, args string) []openai.ToolCall {
	out := make([]openai.ToolCall, n)
	for i := range out {
		out[i] = agenttest.Call(fmt.Sprint(prefix, i), tool, args)
	}
	return out
}

// answeredOnce checks that every call of the assistant message before the
// tool messages of req got exactly one tool message, and returns the
// contents by call id.
func answeredOnce(t *testing.T, req openai.ChatCompletionRequest, want []openai.ToolCall) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, m := range agenttest.ToolMessages(req) {
		if _, dup := got[m.ToolCallID]; dup {
			t.Errorf("call %s answered twice", m.ToolCallID)
		}
		got[m.ToolCallID] = m.Content
	}
	for _, c := range want {
		if _, ok := got[c.ID]; !ok {
			t.Errorf("call %s got no tool message", c.ID)
		}
	}
	return got
}

// TestPlannerRetrieveFlood: a planner that asks for 40 retrievers per turn
// gets MaxToolCallsPerTurn of them in its first turn and the rest of
// MaxRetrievers in its second; every other call is answered as not run.
func TestPlannerRetrieveFlood(t *testing.T) {
	t.Parallel()
	const perTurn, perRun, flood = 10, 15, 40
	turn := [2][]openai.ToolCall{
		calls(flood, "a", "retrieve", `{"query":"find Send"}`),
		calls(flood, "b", "retrieve", `{"query":"find Send again"}`),
	}
	var retrievers atomic.Int32
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		switch req.Model {
		case "planner-model":
			if k := agenttest.Turns(req); k < 2 {
				return agenttest.OK(agenttest.Calls(turn[k]...))
			}
			return agenttest.OK(agenttest.Text("done"))
		case "retriever-model":
			retrievers.Add(1)
			return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
		}
		return agenttest.OK(agenttest.Text("The answer: notify/sms.go:12."))
	})
	t.Cleanup(srv.Close)
	r := newRunner(t, realClient(srv), tools.NewRegistry(), func(o *agent.Options) {
		o.MaxToolCallsPerTurn, o.MaxRetrievers = perTurn, perRun
	})
	a, err := r.Ask(t.Context(), "where are SMS sent?")
	if err != nil {
		t.Fatal(err)
	}
	if got := retrievers.Load(); got != perRun {
		t.Errorf("%d retriever requests, want %d", got, perRun)
	}
	if len(a.Retrievals) != perRun {
		t.Errorf("%d reports, want %d", len(a.Retrievals), perRun)
	}
	var last openai.ChatCompletionRequest
	for _, req := range srv.Requests() {
		if req.Model == "planner-model" {
			last = req
		}
	}
	got := answeredOnce(t, last, append(turn[0], turn[1]...))
	count := func(prefix, text string) int {
		n := 0
		for id, c := range got {
			if strings.HasPrefix(id, prefix) && strings.Contains(c, text) {
				n++
			}
		}
		return n
	}
	want := []int{perTurn, flood - perTurn, 0, perRun - perTurn, perTurn - (perRun - perTurn), flood - perTurn}
	if diff := cmp.Diff(want, []int{
		count("a", "notify/sms.go:12"), count("a", "at most 10 are run per turn"), count("a", "already started"),
		count("b", "notify/sms.go:12"), count("b", "already started its limit of 15 retrievers"), count("b", "at most 10 are run per turn"),
	}); diff != "" {
		t.Errorf("[ran, refused per turn, refused per run] of turns 1 and 2 (-want +got):\n%s", diff)
	}
}

// TestPlannerFloodDefaults: one planner reply of 10,000 retrieve calls,
// with the default options, starts at most DefaultMaxToolCallsPerTurn
// retrievers.
func TestPlannerFloodDefaults(t *testing.T) {
	t.Parallel()
	flood := calls(10_000, "p", "retrieve", `{"query":"q"}`)
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		switch {
		case req.Model == "planner-model" && agenttest.Turns(req) == 0:
			return agenttest.OK(agenttest.Calls(flood...))
		case req.Model == "retriever-model":
			return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
		}
		return agenttest.OK(agenttest.Text("done"))
	})
	t.Cleanup(srv.Close)
	r := newRunner(t, realClient(srv), tools.NewRegistry(), nil)
	if _, err := r.Ask(t.Context(), "q?"); err != nil {
		t.Fatal(err)
	}
	// planner ×2, retrievers, answer writer
	if got, want := len(srv.Requests()), 3+min(agent.DefaultMaxToolCallsPerTurn, agent.DefaultMaxRetrievers); got != want {
		t.Errorf("%d model requests, want %d", got, want)
	}
}

// TestRetrieverToolCallsPerTurn: a retriever turn of 50 calls runs
// MaxToolCallsPerTurn of them; each call gets exactly one tool message.
func TestRetrieverToolCallsPerTurn(t *testing.T) {
	t.Parallel()
	const perTurn = 7
	flood := calls(50, "c", "count", `{"text":"x"}`)
	var ran atomic.Int32
	count := tools.New("count", "Counts.", echoSchema, func(_ context.Context, a echoArgs) (tools.Result, error) {
		ran.Add(1)
		return tools.Result{Content: "counted"}, nil
	})
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		if agenttest.Turns(req) == 0 {
			return agenttest.OK(agenttest.Calls(flood...))
		}
		return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
	})
	t.Cleanup(srv.Close)
	r := newRunner(t, realClient(srv), tools.NewRegistry(count), func(o *agent.Options) { o.MaxToolCallsPerTurn = perTurn })
	rep, _, err := r.Retrieve(t.Context(), "find Send")
	if err != nil || rep.Incomplete {
		t.Fatalf("retrieve: %v %+v", err, rep)
	}
	if got := ran.Load(); got != perTurn {
		t.Errorf("tool ran %d times, want %d", got, perTurn)
	}
	reqs := srv.Requests()
	got := answeredOnce(t, reqs[len(reqs)-1], flood)
	refused := 0
	for _, c := range got {
		if strings.Contains(c, "error: not run: this turn made 50 tool calls and at most 7 are run per turn") {
			refused++
		}
	}
	if refused != 50-perTurn {
		t.Errorf("%d calls answered as not run, want %d", refused, 50-perTurn)
	}
}

// TestRetrieverHeldResultsBounded: a retriever that asks for five 300 KB
// results per turn keeps at most RetrieverMaxToolBytes of them (plus the
// notes that replace the dropped ones) in every request it sends.
func TestRetrieverHeldResultsBounded(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	big := tools.New("big", "Returns 300 KB.", echoSchema, func(_ context.Context, a echoArgs) (tools.Result, error) {
		return tools.Result{Content: a.Text + " first line\n" + strings.Repeat("y", 300<<10)}, nil
	})
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		if k := agenttest.Turns(req); k < 4 {
			return agenttest.OK(agenttest.Calls(calls(5, fmt.Sprint("t", k, "-"), "big", fmt.Sprintf(`{"text":"turn %d"}`, k))...))
		}
		return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
	})
	t.Cleanup(srv.Close)
	r := newRunner(t, realClient(srv), tools.NewRegistry(big), func(o *agent.Options) {
		o.RetrieverMaxToolBytes = limit
		o.LoopRepeats = 100
	})
	rep, _, err := r.Retrieve(t.Context(), "find Send")
	if err != nil || rep.Incomplete {
		t.Fatalf("retrieve: %v %+v", err, rep)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, req := range reqs {
		held := 0
		for _, m := range agenttest.ToolMessages(req) {
			held += len(m.Content)
		}
		if held > limit {
			t.Errorf("request %d holds %d bytes of tool results, want at most %d", i+1, held, limit)
		}
	}
	last := agenttest.ToolMessages(reqs[4])
	if len(last) != 20 {
		t.Fatalf("%d tool messages in the last request, want 20", len(last))
	}
	first := last[0].Content
	want := fmt.Sprintf(`[result dropped: the result of big {"text":"turn 0"} (%d bytes, beginning "turn 0 first line") was removed to keep this retriever's tool results within 1 MiB;`, len("turn 0 first line\n")+300<<10)
	if !strings.HasPrefix(first, want) {
		t.Errorf("oldest result: %.300s", first)
	}
	if !strings.HasPrefix(last[19].Content, "turn 3 first line") {
		t.Errorf("newest result was dropped: %.200s", last[19].Content)
	}
}

// TestOversizedReplyFailsItsRetriever: one retriever's model reply over
// MaxReplyBytes ends that retriever, incomplete, and the planner gets its
// failure as the tool result; the run goes on and answers.
func TestOversizedReplyFailsItsRetriever(t *testing.T) {
	t.Parallel()
	huge := `{"id":"x","choices":[{"message":{"role":"assistant","content":"` + strings.Repeat("w", agent.MaxReplyBytes+(1<<20)) + `"}}]}`
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		switch req.Model {
		case "planner-model":
			if agenttest.Turns(req) == 0 {
				return agenttest.OK(agenttest.Calls(
					agenttest.Call("huge", "retrieve", `{"query":"answer hugely"}`),
					agenttest.Call("fine", "retrieve", `{"query":"answer briefly"}`)))
			}
			return agenttest.OK(agenttest.Text("done"))
		case "retriever-model":
			if agenttest.FirstUser(req) == "answer hugely" {
				return agenttest.Reply{Body: huge}
			}
			return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
		}
		return agenttest.OK(agenttest.Text("The answer: notify/sms.go:12."))
	})
	t.Cleanup(srv.Close)
	client := agent.NewRetryClient(agent.NewOpenAIClient(srv.URL()+"/v1", "test", nil), agent.RetryOptions{})
	r := newRunner(t, client, tools.NewRegistry(), nil)
	a, err := r.Ask(t.Context(), "where are SMS sent?")
	if err != nil {
		t.Fatalf("ask: %v; want the run to go on without the failed retriever", err)
	}
	if len(a.Retrievals) != 2 || !strings.Contains(a.Markdown, "The answer") {
		t.Fatalf("%d reports, markdown %.300q", len(a.Retrievals), a.Markdown)
	}
	var planner openai.ChatCompletionRequest
	for _, req := range srv.Requests() {
		if req.Model == "planner-model" {
			planner = req
		}
	}
	got := answeredOnce(t, planner, nil)
	if !strings.Contains(got["huge"], "reply is larger than 8 MiB") || !strings.Contains(got["fine"], "notify/sms.go:12") {
		t.Errorf("planner's tool results: huge %.300q, fine %.300q", got["huge"], got["fine"])
	}
}
