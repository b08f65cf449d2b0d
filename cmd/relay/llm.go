package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/workspace"
)

// llmFlags configure the agent runtime of ask, scope and batch. Flags win
// over environment variables; the API key comes only from the environment.
// The flags that map one to one onto a field of agent.Config are bound to
// it; their defaults are agent.Config's (SetDefaults).
type llmFlags struct {
	cfg            agent.Config // BaseURL, numbers, durations and switches, as parsed
	model          string
	plannerModel   string
	retrieverModel string
	gapModel       string
	prices         []string
	maxTokens      int64 // 0: no limit
	keepRunsMB     int64
}

func (f *llmFlags) register(fs *pflag.FlagSet) {
	var d agent.Config
	d.SetDefaults()
	c := &f.cfg
	fs.StringVar(&c.BaseURL, "base-url", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (env OPENAI_BASE_URL; default api.openai.com); the key comes from OPENAI_API_KEY")
	fs.StringVar(&f.model, "model", "", "model of every stage unless overridden (env RELAY_MODEL; default "+agent.DefaultModel+" on api.openai.com)")
	fs.StringVar(&f.plannerModel, "planner-model", "", "planner model (env RELAY_PLANNER_MODEL; default --model)")
	fs.StringVar(&f.retrieverModel, "retriever-model", "", "retriever model (env RELAY_RETRIEVER_MODEL; default --model)")
	fs.StringVar(&f.gapModel, "gap-model", "", "gap detector / answer writer model (env RELAY_GAP_MODEL; default --model)")
	fs.StringArrayVar(&f.prices, "price", nil, "price of a model per million tokens, model=in/out, e.g. gpt-4o-mini=0.15/0.60; repeatable (env RELAY_PRICES, comma-separated)")
	fs.Int64Var(&f.maxTokens, "max-tokens", d.MaxTokens, "stop the run once it has used this many tokens (0: no limit)")
	fs.Float64Var(&c.MaxCost, "max-cost", 0, "stop the run once it has cost this much, by --price (0: no limit)")
	fs.IntVar(&c.Parallel, "parallel", d.Parallel, "retrievers running at once")
	fs.IntVar(&c.MaxRetrievers, "max-retrievers", d.MaxRetrievers, "retrievers one run starts at most; further retrieve calls are answered as not run")
	fs.IntVar(&c.MaxToolCallsPerTurn, "max-tool-calls", d.MaxToolCallsPerTurn, "tool calls of one model turn that run (planner and retrievers); the rest are answered as not run")
	fs.IntVar(&c.PlannerSteps, "planner-steps", d.PlannerSteps, "planner turns before it must conclude")
	fs.IntVar(&c.RetrieverSteps, "retriever-steps", d.RetrieverSteps, "retriever turns before it is asked for its final report (soft cap)")
	fs.DurationVar(&c.RetrieverTimeout, "retriever-timeout", d.RetrieverTimeout, "hard deadline of one retriever; it then returns what it has")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", d.RequestTimeout, "timeout of one model request (then retried)")
	fs.DurationVar(&c.Timeout, "timeout", 0, "deadline of the whole run; it then ends with what it has (0: none)")
	fs.IntVar(&c.Retries, "retries", d.Retries, "attempts per model request on 429, 5xx and timeouts")
	fs.BoolVar(&c.NoJSONMode, "no-json-mode", false, "do not send response_format json_object (for endpoints that reject it)")
	fs.BoolVar(&c.NoTranscript, "no-transcript", false, "do not write the run transcript under runs/ in the store directory (or --state)")
	fs.IntVar(&c.RunsKeep, "keep-runs", d.RunsKeep, "transcripts kept in the runs directory; older ones are deleted when a run starts (-1: no limit)")
	fs.Int64Var(&f.keepRunsMB, "keep-runs-mb", d.RunsMaxBytes>>20, "megabytes of transcripts kept in the runs directory; the oldest go first (-1: no limit)")
}

// errNoEndpoint is what newAgent returns when no model endpoint is
// configured; ask, scope and batch then write the offline report.
var errNoEndpoint = errors.New("no model endpoint configured")

// endpoint returns the configured base URL and key; ok is false when neither
// OPENAI_API_KEY nor an endpoint is set.
func (f *llmFlags) endpoint(g *globals) (baseURL, apiKey string, ok bool) {
	baseURL = f.cfg.BaseURL
	if baseURL == "" {
		baseURL = g.getenv("OPENAI_BASE_URL")
	}
	apiKey = g.getenv("OPENAI_API_KEY")
	return baseURL, apiKey, baseURL != "" || apiKey != ""
}

// config is the agent configuration of the flags and the environment, with
// its defaults, checked; errNoEndpoint without an endpoint. Its errors
// name the flags (advice.ConfigNamesFor).
func (f *llmFlags) config(g *globals) (agent.Config, error) {
	c := f.cfg
	var ok bool
	if c.BaseURL, c.APIKey, ok = f.endpoint(g); !ok {
		return c, errNoEndpoint
	}
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return g.getenv(env)
	}
	c.Model = pick(f.model, "RELAY_MODEL")
	c.Models = agent.Models{
		Planner:   pick(f.plannerModel, "RELAY_PLANNER_MODEL"),
		Retriever: pick(f.retrieverModel, "RELAY_RETRIEVER_MODEL"),
		Gap:       pick(f.gapModel, "RELAY_GAP_MODEL"),
	}
	// On the command line 0 tokens means no limit; a negative count is a
	// mistake, not the config's NoLimit.
	switch {
	case f.maxTokens == 0:
		c.MaxTokens = agent.NoLimit
	case f.maxTokens < 0:
		return c, usageErr(fmt.Errorf("--max-tokens %d: must not be negative (0: no limit)", f.maxTokens))
	default:
		c.MaxTokens = f.maxTokens
	}
	c.RunsMaxBytes = f.keepRunsMB << 20
	if f.keepRunsMB < 0 {
		c.RunsMaxBytes = agent.NoLimit
	}
	var err error
	if c.Prices, err = f.priceTable(g); err != nil {
		return c, err
	}
	// A flag given as 0 is refused before the zero could become a default.
	if err := c.Validate(); err != nil {
		return c, usageErr(advice.ConfigNamesFor(advice.CLI).Advise(err, c))
	}
	c.SetDefaults()
	return c, nil
}

// newAgent builds the agent session for root from flags and environment
// (workspace.Session). progress may be nil.
func (f *llmFlags) newAgent(ctx context.Context, g *globals, root string, progress func(agent.Progress)) (*workspace.Session, error) {
	return f.newAgentOn(ctx, g, root, nil, progress)
}

// newAgentOn is newAgent over an already open graph (nil: open root's
// store, if it has one); the session does not close that graph.
func (f *llmFlags) newAgentOn(ctx context.Context, g *globals, root string, graph graphdb.Reader, progress func(agent.Progress)) (*workspace.Session, error) {
	cfg, err := f.config(g)
	if err != nil {
		return nil, err
	}
	s, err := g.ws(root).Session(ctx, cfg, advice.ConfigNamesFor(advice.CLI), workspace.AgentOptions{Graph: graph, Progress: progress})
	return s, cliErr(err)
}

func (f *llmFlags) priceTable(g *globals) (map[string]agent.Price, error) {
	specs := f.prices
	if len(specs) == 0 {
		specs = splitFlag(g.getenv("RELAY_PRICES"))
	}
	out := map[string]agent.Price{}
	for _, s := range specs {
		m, p, err := agent.ParsePrice(s)
		if err != nil {
			return nil, usageErr(fmt.Errorf("--price: %w", err))
		}
		out[m] = p
	}
	return out, nil
}

// runContext bounds a run by --timeout (0: none).
func (f *llmFlags) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.cfg.Timeout > 0 {
		return context.WithTimeout(ctx, f.cfg.Timeout)
	}
	return context.WithCancel(ctx)
}

// progressPrinter streams agent progress as one line per event
// (agent.Progress.Line).
func progressPrinter(w io.Writer) func(agent.Progress) {
	var mu sync.Mutex
	return func(p agent.Progress) {
		if line := p.Line(); line != "" {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(w, line)
		}
	}
}

// writeUsage prints the usage summary, the transcript path and why a run
// stopped early, if it did.
func writeUsage(w io.Writer, u agent.Usage, transcript, stopped string, d time.Duration) {
	fmt.Fprintln(w)
	_ = u.WriteSummary(w)
	fmt.Fprintf(w, "time %s", d.Round(time.Millisecond))
	if transcript != "" {
		fmt.Fprintf(w, "; transcript %s", transcript)
	}
	fmt.Fprintln(w)
	if stopped != "" {
		fmt.Fprintf(w, "relay: the run stopped early (%s); the report holds what it had gathered\n", stopped)
	}
}
