package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
// configured; ask, scope and batch then use offlineFallback.
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
// name the flags (cliSettings).
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
		return c, usageErr(cliSettings.advise(err, c))
	}
	c.SetDefaults()
	return c, nil
}

// agentSession is a configured Runner plus what to release after it.
type agentSession struct {
	runner  *agent.Runner
	closers []io.Closer
	cfg     agent.Config  // with its defaults, for messages
	names   *settingNames // how the user sets cfg, for messages
}

// explain adds what to check to an error that means the model endpoint
// could not be reached at all (refused, unknown host, no route), did not
// answer in time, or answered with something other than the API.
func (s *agentSession) explain(err error) error {
	return s.names.explain(err, s.cfg)
}

func (s *agentSession) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	if s.runner != nil {
		s.runner.Close()
	}
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
	cfg, err := f.config(g)
	if err != nil {
		return nil, err
	}
	return startAgent(ctx, g, cfg, &cliSettings, root, graph, progress)
}

// startAgent builds the agent runtime of cfg (checked, with its defaults)
// for root: the tools over root and graph, the transcripts in g's state
// directory. names says how the user sets cfg, for the session's messages.
func startAgent(ctx context.Context, g *globals, cfg agent.Config, names *settingNames, root string, graph graphdb.Reader, progress func(agent.Progress)) (*agentSession, error) {
	s := &agentSession{cfg: cfg, names: names}
	reg, err := s.tools(ctx, g, root, graph)
	if err != nil {
		s.Close()
		return nil, err
	}
	runsDir := ""
	if !cfg.NoTranscript {
		if runsDir, err = runsDirOf(g, root); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.runner, err = agent.NewFromConfig(cfg, agent.Deps{Tools: reg, Root: root, RunsDir: runsDir, Log: g.log, Progress: progress})
	if err != nil {
		s.Close()
		return nil, names.advise(err, cfg)
	}
	return s, nil
}

// runsDirOf returns where transcripts go: runs/ in relay's state
// directory, or "" (none) when that directory cannot be written, which is
// said once on stderr.
func runsDirOf(g *globals, root string) (string, error) {
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
func (s *agentSession) tools(ctx context.Context, g *globals, root string, graph graphdb.Reader) (*tools.Registry, error) {
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
	return runContext(ctx, f.cfg.Timeout)
}

// runContext bounds a run by timeout (0: none).
func runContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
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

// settingNames says how a user sets the agent's settings — the CLI's
// flags and environment, or relay.yaml's keys — so that the advice added
// to the agent's errors names what the user can change.
type settingNames struct {
	fields         map[string]string // agent.Config field → flag or key
	noModel        string            // what to do on agent.ErrNoModel
	noPrices       string            // what to do on agent.ErrNoPrices
	requestTimeout string
	retries        string
	baseURL        string // where the endpoint is set
	offline        string // how to run without a model
}

// cliSettings names the flags of llmFlags.register.
var cliSettings = settingNames{
	fields: map[string]string{
		"Parallel": "--parallel", "PlannerSteps": "--planner-steps", "RetrieverSteps": "--retriever-steps",
		"Retries": "--retries", "MaxRetrievers": "--max-retrievers", "MaxToolCallsPerTurn": "--max-tool-calls",
		"RunsKeep": "--keep-runs", "RunsMaxBytes": "--keep-runs-mb", "RequestTimeout": "--request-timeout",
		"RetrieverTimeout": "--retriever-timeout", "Timeout": "--timeout", "MaxTokens": "--max-tokens", "MaxCost": "--max-cost",
	},
	noModel:        "pass --model (or set RELAY_MODEL), e.g. --model qwen2.5-coder:14b for Ollama",
	noPrices:       "pass --price model=in/out (per million tokens) or set RELAY_PRICES",
	requestTimeout: "--request-timeout",
	retries:        "--retries",
	baseURL:        "--base-url / OPENAI_BASE_URL",
	offline:        "without a model, unset OPENAI_BASE_URL and OPENAI_API_KEY to use the offline pipeline",
}

// advise rewrites agent.Config.Validate's problems in the user's terms,
// one a line; errors.Is and errors.As still see the originals.
func (n *settingNames) advise(err error, c agent.Config) error {
	if err == nil {
		return nil
	}
	problems := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	}
	lines := make([]string, 0, len(problems))
	for _, p := range problems {
		var ce *agent.ConfigError
		switch {
		case errors.Is(p, agent.ErrNoModel):
			lines = append(lines, fmt.Sprintf("no model for endpoint %s: %s", redact.URL(c.BaseURL), n.noModel))
		case errors.As(p, &ce):
			name := n.fields[ce.Field]
			if name == "" {
				name = ce.Field
			}
			line := fmt.Sprintf("%s %s: %s", name, ce.Value, ce.Reason)
			if errors.Is(ce, agent.ErrNoPrices) {
				line += "; " + n.noPrices
			}
			lines = append(lines, line)
		default:
			lines = append(lines, p.Error())
		}
	}
	return &advisedError{msg: strings.Join(lines, "\n"), err: err}
}

// explain adds what to check to an error of a run that means the model
// endpoint could not be reached at all (refused, unknown host, no route),
// did not answer in time, or answered with something other than the API.
func (n *settingNames) explain(err error, c agent.Config) error {
	if err == nil {
		return nil
	}
	where := redact.URL(c.BaseURL)
	if where == "" {
		where = "https://api.openai.com/v1"
	}
	var re *agent.ReplyError
	if errors.As(err, &re) {
		return fmt.Errorf("%w\ncheck %s", err, n.baseURL)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w\nthe model endpoint %s did not answer within %s %s (%d attempt(s), %s); raise %s for a slow model, or check the endpoint",
			err, redact.URL(c.BaseURL), n.requestTimeout, c.RequestTimeout, c.Retries, n.retries, n.requestTimeout)
	}
	var op *net.OpError
	var dns *net.DNSError
	if !(errors.As(err, &op) || errors.As(err, &dns)) {
		return err
	}
	return fmt.Errorf("%w\ncannot reach the model endpoint %s: check that the server is running and that %s points at it (%s)", err, where, n.baseURL, n.offline)
}

// advisedError replaces an error's text with advice and keeps its chain.
type advisedError struct {
	msg string
	err error
}

func (e *advisedError) Error() string { return e.msg }
func (e *advisedError) Unwrap() error { return e.err }
