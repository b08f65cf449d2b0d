package agent_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/tools"
)

// latencyModel is a scripted endpoint with a fixed latency per retriever
// call. A retriever whose task is "turns=N" makes N-1 tool turns, then
// reports. The planner asks for the queries in one turn; planner and gap
// calls have no latency.
func latencyModel(latency time.Duration, queries []string) agenttest.Handler {
	return func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		switch req.Model {
		case "planner-model":
			if len(agenttest.ToolMessages(req)) > 0 {
				return agenttest.OK(agenttest.Text("done"))
			}
			var calls []openai.ToolCall
			for i, q := range queries {
				calls = append(calls, agenttest.Call(fmt.Sprint("p", i), "retrieve", agenttest.Args(map[string]string{"query": q})))
			}
			return agenttest.OK(agenttest.Calls(calls...))
		case "retriever-model":
			var turns int
			fmt.Sscanf(agenttest.FirstUser(req), "turns=%d", &turns)
			r := agenttest.Reply{Delay: latency}
			if agenttest.Turns(req) < turns-1 {
				r.Completion = agenttest.Calls(agenttest.Call(fmt.Sprint("c", n), "echo", `{"text":"x"}`))
			} else {
				r.Completion = agenttest.Text("Send is at notify/sms.go:12.")
			}
			return r
		}
		return agenttest.OK(agenttest.Text(validScope))
	}
}

// BenchmarkParallelRetrievers compares one scope run whose planner starts
// four retrievers (2, 3, 4 and 4 model turns at a fixed latency per call)
// with the slowest of them (4 turns) running alone. The x_slowest metric is
// the ratio; the target is ≤ 1.2.
func BenchmarkParallelRetrievers(b *testing.B) {
	const latency = 25 * time.Millisecond
	queries := []string{"turns=2", "turns=3", "turns=4", "turns=4"}
	srv := agenttest.NewServer(latencyModel(latency, queries))
	defer srv.Close()
	r := newRunner(b, realClient(srv), tools.NewRegistry(echoTool("echo")), func(o *agent.Options) { o.NewID = nil; o.Now = nil })
	ctx := context.Background()
	var alone, parallel time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, _, err := r.Retrieve(ctx, "turns=4"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		s, err := r.Scope(ctx, "issue")
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Retrievals) != 4 || !s.Structured {
			b.Fatalf("scope: %d retrievals, structured %v", len(s.Retrievals), s.Structured)
		}
		alone += t1.Sub(t0)
		parallel += time.Since(t1)
	}
	b.ReportMetric(float64(alone.Microseconds())/float64(b.N)/1000, "ms_slowest_alone")
	b.ReportMetric(float64(parallel.Microseconds())/float64(b.N)/1000, "ms_four_parallel")
	b.ReportMetric(float64(parallel)/float64(alone), "x_slowest")
}

// BenchmarkStepOverhead measures the runtime's own cost per retriever step
// (request building, tool dispatch, loop detection, transcript writing,
// usage accounting, citation check), with a model that answers at once.
func BenchmarkStepOverhead(b *testing.B) {
	const steps = 20
	script := func(_ context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error) {
		if agenttest.Turns(req) < steps-1 {
			return agenttest.Calls(
				agenttest.Call(fmt.Sprint("a", n), "echo", fmt.Sprintf(`{"text":"%d"}`, n)),
				agenttest.Call(fmt.Sprint("b", n), "echo", fmt.Sprintf(`{"text":"%d-%s"}`, n, strings.Repeat("x", 200))),
			), nil
		}
		return agenttest.Text("Send is at notify/sms.go:12."), nil
	}
	for _, tc := range []struct {
		name   string
		client func() agent.ChatClient
	}{
		{"in-process", func() agent.ChatClient { return agenttest.NewClient(script) }},
		{"http", func() agent.ChatClient {
			srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
				c, _ := script(context.Background(), req, n)
				return agenttest.OK(c)
			})
			b.Cleanup(srv.Close)
			return realClient(srv)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			runs := b.TempDir()
			r := newRunner(b, tc.client(), tools.NewRegistry(echoTool("echo")), func(o *agent.Options) {
				o.RunsDir = runs
				o.NewID = nil
				o.Now = nil
				o.LoopRepeats = 1000
			})
			ctx := context.Background()
			for b.Loop() {
				rep, _, err := r.Retrieve(ctx, "q")
				if err != nil || rep.Steps != steps {
					b.Fatalf("steps %d, err %v", rep.Steps, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*steps)/1000, "ms/step")
		})
	}
}

// BenchmarkRetrieveFlood is a planner whose first reply asks for 10,000
// retrievers at once (each retriever answers at once): it reports the model
// requests the run made and the size of its transcript, with the runner's
// default options.
func BenchmarkRetrieveFlood(b *testing.B) {
	const calls = 10_000
	var queries []string
	for i := range calls {
		queries = append(queries, fmt.Sprint("turns=1 task ", i))
	}
	srv := agenttest.NewServer(latencyModel(0, queries))
	defer srv.Close()
	runs := b.TempDir()
	r := newRunner(b, realClient(srv), tools.NewRegistry(echoTool("echo")), func(o *agent.Options) {
		o.RunsDir, o.NewID, o.Now = runs, nil, nil
	})
	var requests, transcript int64
	for b.Loop() {
		before := len(srv.Requests())
		a, err := r.Ask(context.Background(), "question")
		if err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(a.Transcript)
		if err != nil {
			b.Fatal(err)
		}
		requests += int64(len(srv.Requests()) - before)
		transcript += fi.Size()
		srv.Forget()
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/run")
	b.ReportMetric(float64(transcript)/float64(b.N)/1e6, "transcript_MB/run")
}

// BenchmarkRetrieverReadFlood is a retriever that asks for 300 reads of a
// 300 KB file in each of three turns: it reports the most bytes of tool
// results one request carried (what the retriever held) and the tool
// calls that ran.
func BenchmarkRetrieverReadFlood(b *testing.B) {
	const turns, reads = 3, 300
	root := writeRepo(b, map[string]string{"big.txt": strings.Repeat(strings.Repeat("x", 99)+"\n", 3000)})
	reg, err := tools.Default(tools.Options{Root: root})
	if err != nil {
		b.Skip("rg/fd missing:", err)
	}
	var held atomic.Int64
	var srv *agenttest.Server
	srv = agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		var bytes int64
		for _, m := range agenttest.ToolMessages(req) {
			bytes += int64(len(m.Content))
		}
		if bytes > held.Load() {
			held.Store(bytes)
		}
		srv.Forget()
		if k := agenttest.Turns(req); k < turns {
			var calls []openai.ToolCall
			for i := range reads {
				calls = append(calls, agenttest.Call(fmt.Sprint(k, "-", i), "read", `{"file":"big.txt"}`))
			}
			return agenttest.OK(agenttest.Calls(calls...))
		}
		return agenttest.OK(agenttest.Text("Send is at notify/sms.go:12."))
	})
	defer srv.Close()
	r := newRunner(b, realClient(srv), reg, func(o *agent.Options) {
		o.NewID, o.Now, o.LoopRepeats, o.RetrieverTimeout = nil, nil, 1<<20, 5*time.Minute
	})
	var ran int
	for b.Loop() {
		rep, _, err := r.Retrieve(context.Background(), "q")
		if err != nil {
			b.Fatal(err)
		}
		ran = rep.ToolCalls
	}
	b.ReportMetric(float64(held.Load())/1e6, "max_held_MB")
	b.ReportMetric(float64(ran), "tool_calls_asked")
}
