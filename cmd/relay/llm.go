package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tools"
)

// llmFlags configure the agent runtime of ask, scope and batch. Flags win
// over environment variables; the API key comes only from the environment.
type llmFlags struct {
	baseURL          string
	model            string
	plannerModel     string
	retrieverModel   string
	gapModel         string
	prices           []string
	maxTokens        int64
	maxCost          float64
	parallel         int
	maxRetrievers    int
	maxToolCalls     int
	plannerSteps     int
	softCap          int
	retrieverTimeout time.Duration
	requestTimeout   time.Duration
	timeout          time.Duration
	retries          int
	noJSONMode       bool
	noTranscript     bool
	keepRuns         int
	keepRunsMB       int64
}

func (f *llmFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (env OPENAI_BASE_URL; default api.openai.com); the key comes from OPENAI_API_KEY")
	fs.StringVar(&f.model, "model", "", "model of every stage unless overridden (env RELAY_MODEL; default gpt-4o-mini on api.openai.com)")
	fs.StringVar(&f.plannerModel, "planner-model", "", "planner model (env RELAY_PLANNER_MODEL; default --model)")
	fs.StringVar(&f.retrieverModel, "retriever-model", "", "retriever model (env RELAY_RETRIEVER_MODEL; default --model)")
	fs.StringVar(&f.gapModel, "gap-model", "", "gap detector / answer writer model (env RELAY_GAP_MODEL; default --model)")
	fs.StringArrayVar(&f.prices, "price", nil, "price of a model per million tokens, model=in/out, e.g. gpt-4o-mini=0.15/0.60; repeatable (env RELAY_PRICES, comma-separated)")
	fs.Int64Var(&f.maxTokens, "max-tokens", agent.DefaultMaxTokens, "stop the run once it has used this many tokens (0: no limit)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "stop the run once it has cost this much, by --price (0: no limit)")
	fs.IntVar(&f.parallel, "parallel", 4, "retrievers running at once")
	fs.IntVar(&f.maxRetrievers, "max-retrievers", agent.DefaultMaxRetrievers, "retrievers one run starts at most; further retrieve calls are answered as not run")
	fs.IntVar(&f.maxToolCalls, "max-tool-calls", agent.DefaultMaxToolCallsPerTurn, "tool calls of one model turn that run (planner and retrievers); the rest are answered as not run")
	fs.IntVar(&f.plannerSteps, "planner-steps", 6, "planner turns before it must conclude")
	fs.IntVar(&f.softCap, "retriever-steps", 20, "retriever turns before it is asked for its final report (soft cap)")
	fs.DurationVar(&f.retrieverTimeout, "retriever-timeout", 5*time.Minute, "hard deadline of one retriever; it then returns what it has")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 3*time.Minute, "timeout of one model request (then retried)")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline of the whole run; it then ends with what it has (0: none)")
	fs.IntVar(&f.retries, "retries", 4, "attempts per model request on 429, 5xx and timeouts")
	fs.BoolVar(&f.noJSONMode, "no-json-mode", false, "do not send response_format json_object (for endpoints that reject it)")
	fs.BoolVar(&f.noTranscript, "no-transcript", false, "do not write the run transcript under runs/ in the store directory (or --state)")
	fs.IntVar(&f.keepRuns, "keep-runs", agent.DefaultRunsKeep, "transcripts kept in the runs directory; older ones are deleted when a run starts (-1: no limit)")
	fs.Int64Var(&f.keepRunsMB, "keep-runs-mb", agent.DefaultRunsMaxBytes>>20, "megabytes of transcripts kept in the runs directory; the oldest go first (-1: no limit)")
}

// errNoEndpoint is what newAgent returns when no model endpoint is
// configured; ask, scope and batch then use offlineFallback.
var errNoEndpoint = errors.New("no model endpoint configured")

// endpoint returns the configured base URL and key; ok is false when neither
// OPENAI_API_KEY nor an endpoint is set.
func (f *llmFlags) endpoint(g *globals) (baseURL, apiKey string, ok bool) {
	baseURL = f.baseURL
	if baseURL == "" {
		baseURL = g.getenv("OPENAI_BASE_URL")
	}
	apiKey = g.getenv("OPENAI_API_KEY")
	return baseURL, apiKey, baseURL != "" || apiKey != ""
}

// agentSession is a configured Runner plus what to release after it.
type agentSession struct {
	runner  *agent.Runner
	http    *http.Client
	closers []io.Closer
	baseURL string // the endpoint, for error messages
	retries int
}

// explain adds what to check to an error that means the model endpoint
// could not be reached at all (refused, unknown host, no route) or did not
// answer in time.
func (s *agentSession) explain(err error) error {
	if err == nil {
		return nil
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w\nthe model endpoint %s did not answer within --request-timeout %s (%d attempt(s), --retries); raise --request-timeout for a slow model, or check the endpoint",
			err, redact.URL(s.baseURL), s.http.Timeout, s.retries)
	}
	var op *net.OpError
	var dns *net.DNSError
	if !(errors.As(err, &op) || errors.As(err, &dns)) {
		return err
	}
	where := redact.URL(s.baseURL)
	if where == "" {
		where = "https://api.openai.com/v1"
	}
	return fmt.Errorf("%w\ncannot reach the model endpoint %s: check that the server is running and that --base-url / OPENAI_BASE_URL points at it (without a model, unset OPENAI_BASE_URL and OPENAI_API_KEY to use the offline pipeline)", err, where)
}

func (s *agentSession) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	s.http.CloseIdleConnections()
	return errors.Join(errs...)
}

// newAgent builds the agent runtime for root from flags and environment.
// progress may be nil.
func (f *llmFlags) newAgent(ctx context.Context, g *globals, root string, progress func(agent.Progress)) (*agentSession, error) {
	return f.newAgentOn(ctx, g, root, nil, progress)
}

// newAgentOn is newAgent over an already open graph (nil: open root's
// store, if it has one); the session does not close that graph.
func (f *llmFlags) newAgentOn(ctx context.Context, g *globals, root string, graph graphdb.Reader, progress func(agent.Progress)) (*agentSession, error) {
	baseURL, apiKey, ok := f.endpoint(g)
	if !ok {
		return nil, errNoEndpoint
	}
	models, err := f.models(g, baseURL)
	if err != nil {
		return nil, err
	}
	prices, err := f.priceTable(g)
	if err != nil {
		return nil, err
	}
	if f.parallel < 1 || f.plannerSteps < 1 || f.softCap < 1 || f.retries < 1 || f.maxRetrievers < 1 || f.maxToolCalls < 1 {
		return nil, usageErr(errors.New("--parallel, --planner-steps, --retriever-steps, --retries, --max-retrievers and --max-tool-calls must be at least 1"))
	}
	if f.keepRuns == 0 || f.keepRunsMB == 0 {
		return nil, usageErr(errors.New("--keep-runs and --keep-runs-mb must be positive, or -1 for no limit (--no-transcript writes none)"))
	}
	if f.requestTimeout <= 0 || f.retrieverTimeout <= 0 || f.timeout < 0 {
		return nil, usageErr(fmt.Errorf("--request-timeout (%s) and --retriever-timeout (%s) must be positive, --timeout (%s) positive or 0 for none", f.requestTimeout, f.retrieverTimeout, f.timeout))
	}
	if f.maxTokens < 0 || f.maxCost < 0 {
		return nil, usageErr(errors.New("--max-tokens and --max-cost must not be negative"))
	}
	if f.maxCost > 0 && len(prices) == 0 {
		return nil, usageErr(errors.New("--max-cost needs prices: pass --price model=in/out (per million tokens) or set RELAY_PRICES"))
	}
	s := &agentSession{http: &http.Client{Timeout: f.requestTimeout}, baseURL: baseURL, retries: f.retries}
	reg, err := f.tools(ctx, g, root, graph, s)
	if err != nil {
		s.Close()
		return nil, err
	}
	// Every request passes the egress filter before it is sent (or retried).
	client := agent.NewEgressClient(agent.NewRetryClient(agent.NewOpenAIClient(baseURL, apiKey, s.http), agent.RetryOptions{MaxAttempts: f.retries, Log: g.log}), nil)
	runsDir, err := f.runsDir(g, root)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.runner, err = agent.New(agent.Options{
		Client:           client,
		Tools:            reg,
		Root:             root,
		Models:           models,
		RetrieverSoftCap: f.softCap,
		RetrieverTimeout: f.retrieverTimeout,
		PlannerMaxSteps:  f.plannerSteps,
		Parallel:         f.parallel,
		NoJSONMode:       f.noJSONMode,
		Budget:           agent.Budget{MaxTokens: noLimit(f.maxTokens), MaxCost: f.maxCost},
		Prices:           prices,
		RunsDir:          runsDir,
		RunsKeep:         f.keepRuns,
		RunsMaxBytes:     f.keepRunsMB << 20,
		Log:              g.log,
		Progress:         progress,

		MaxRetrievers:       f.maxRetrievers,
		MaxToolCallsPerTurn: f.maxToolCalls,
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// runsDir returns where transcripts go: runs/ in relay's state directory,
// or "" (none) with --no-transcript or when that directory cannot be
// written, which is said once on stderr.
func (f *llmFlags) runsDir(g *globals, root string) (string, error) {
	if f.noTranscript {
		return "", nil
	}
	dir, err := g.stateDir(root)
	if err != nil {
		return "", err
	}
	if !writable(dir) {
		fmt.Fprintf(g.stderr, "relay: %s cannot be written, so no transcript is kept (pass --state DIR for a writable place, or --no-transcript)\n", dir)
		return "", nil
	}
	if dir, err = g.prepareStateDir(root); err != nil {
		return "", err
	}
	return filepath.Join(dir, "runs"), nil
}

// tools builds grep/glob/read/graph over root; the graph tool uses graph,
// or else the index when one exists, and otherwise tells the model there is
// none.
func (f *llmFlags) tools(ctx context.Context, g *globals, root string, graph graphdb.Reader, s *agentSession) (*tools.Registry, error) {
	if graph == nil {
		st, err := g.openStore(ctx, root, false)
		switch {
		case err == nil:
			graph = st
			s.closers = append(s.closers, st)
		case errors.Is(err, graphdb.ErrNotFound):
			g.log.Info("no code graph index; the graph tool will say so", "root", root)
		default:
			return nil, err
		}
	}
	reg, err := tools.Default(tools.Options{Root: root, Graph: graph, Logger: g.log, Private: g.privateDirs(root), SecretFiles: g.secrets, Hints: g.toolHints()})
	if err != nil {
		return nil, err
	}
	// The hybrid search tool joins when relay index has built its index.
	state, err := g.stateDir(root)
	if err != nil {
		return nil, err
	}
	key, trust, err := g.ownerOptions()
	if err != nil {
		return nil, err
	}
	srch, err := retrieve.Open(root, graph, retrieve.OpenOptions{Dir: state, Log: g.log, Key: key, TrustForeign: trust, SecretFiles: g.secrets})
	switch {
	case err == nil:
		reg.Add(tools.NewSearch(srch))
	case errors.Is(err, retrieve.ErrNoIndex):
		g.log.Info("no search index; the agents get grep, glob, read and graph only", "root", root)
	case errors.Is(err, retrieve.ErrIndexDamaged):
		// The agents can work without it; never search damaged data.
		fmt.Fprintf(g.stderr, "relay: %v\nrelay: the agents get grep, glob, read and graph only\n", err)
	default:
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return reg, nil
}

func (f *llmFlags) models(g *globals, baseURL string) (agent.Models, error) {
	pick := func(flag, env, fallback string) string {
		switch {
		case flag != "":
			return flag
		case g.getenv(env) != "":
			return g.getenv(env)
		}
		return fallback
	}
	model := pick(f.model, "RELAY_MODEL", "")
	if model == "" && baseURL == "" {
		model = "gpt-4o-mini"
	}
	m := agent.Models{
		Planner:   pick(f.plannerModel, "RELAY_PLANNER_MODEL", model),
		Retriever: pick(f.retrieverModel, "RELAY_RETRIEVER_MODEL", model),
		Gap:       pick(f.gapModel, "RELAY_GAP_MODEL", model),
	}
	if m.Planner == "" || m.Retriever == "" || m.Gap == "" {
		return m, usageErr(fmt.Errorf("no model for endpoint %s: pass --model (or set RELAY_MODEL), e.g. --model qwen2.5-coder:14b for Ollama", redact.URL(baseURL)))
	}
	return m, nil
}

func (f *llmFlags) priceTable(g *globals) (map[string]agent.Price, error) {
	specs := f.prices
	if env := g.getenv("RELAY_PRICES"); env != "" && len(specs) == 0 {
		for _, s := range strings.Split(env, ",") {
			if s = strings.TrimSpace(s); s != "" {
				specs = append(specs, s)
			}
		}
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

// runContext applies --timeout.
func (f *llmFlags) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.timeout > 0 {
		return context.WithTimeout(ctx, f.timeout)
	}
	return context.WithCancel(ctx)
}

// progressPrinter streams agent progress as one line per event.
func progressPrinter(w io.Writer) func(agent.Progress) {
	var mu sync.Mutex
	return func(p agent.Progress) {
		var line string
		switch p.Kind {
		case "stage":
			line = fmt.Sprintf("== %s", p.Stage)
		case "retriever_start":
			line = fmt.Sprintf("%s ▶ %s", p.Agent, oneLine(p.Query, 100))
		case "tool_call":
			line = fmt.Sprintf("%s   %s %s", p.Agent, p.Tool, oneLine(p.Args, 100))
		case "retriever_done":
			line = fmt.Sprintf("%s ✓ done", p.Agent)
			if p.Text != "" {
				line = fmt.Sprintf("%s ✗ %s", p.Agent, p.Text)
			}
		case "note":
			line = fmt.Sprintf("%s note: %s", p.Agent, oneLine(p.Text, 140))
		default:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "[%6.1fs] %s\n", p.Elapsed.Seconds(), line)
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
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

// formatTokens renders a token count for tables.
func formatTokens(n int64) string { return strconv.FormatInt(n, 10) }

// noLimit maps a flag's 0 ("no limit") to the agent's -1.
func noLimit(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}
