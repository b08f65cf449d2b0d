package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/publish"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// serveLLMFlags turns the configuration's model section into the flags the
// CLI's agent runtime reads, and checks them as `relay scope` would.
func serveLLMFlags(g *globals, m serve.ModelConfig) (*llmFlags, error) {
	f := &llmFlags{
		baseURL: m.BaseURL, model: m.Model, plannerModel: m.PlannerModel, retrieverModel: m.RetrieverModel,
		gapModel: m.GapModel, maxTokens: m.MaxTokens, maxCost: m.MaxCost,
		parallel: or(m.Parallel, 4), plannerSteps: or(m.PlannerSteps, 6), softCap: or(m.RetrieverSteps, 20),
		retrieverTimeout: or(m.RetrieverTimeout, 5*time.Minute), requestTimeout: or(m.RequestTimeout, 3*time.Minute),
		timeout: m.Timeout, retries: or(m.Retries, 4), noJSONMode: m.NoJSONMode,
		maxRetrievers: agent.DefaultMaxRetrievers, maxToolCalls: agent.DefaultMaxToolCallsPerTurn,
		// The transcripts of the jobs, under the repository's store, are
		// pruned as the CLI prunes its own.
		keepRuns: agent.DefaultRunsKeep, keepRunsMB: agent.DefaultRunsMaxBytes >> 20,
	}
	names := make([]string, 0, len(m.Prices))
	for name := range m.Prices {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f.prices = append(f.prices, name+"="+m.Prices[name])
	}
	if !m.Configured() {
		return f, nil
	}
	mg := modelGlobals(g, m)
	if _, err := f.models(mg, f.baseURL); err != nil {
		return nil, err
	}
	if _, err := f.priceTable(mg); err != nil {
		return nil, err
	}
	return f, nil
}

// publishable is a report made safe to post (package publish: quotes of
// secret-bearing files cut, their values and other secrets redacted, no raw
// HTML, images, unsafe links or live mentions); what was cut and redacted
// is logged. The bot and `relay scope` publish only through it, so the two
// post the same body.
//
// repo is the GitHub repository (owner/name) the report is posted on, whose
// cross-references stay live; "" neutralises them all (ownRepo).
func publishable(log *slog.Logger, files *egress.FilePolicy, root, repo, md string) (string, error) {
	res, err := publish.Report(md, publish.Options{Root: root, Files: files, Repo: repo})
	if err != nil {
		return "", fmt.Errorf("check the report before publishing it: %w", err)
	}
	if res.N() > 0 || res.CutAt != "" {
		log.Warn("report filtered before publishing", "redacted", res.N(), "cut_before", res.CutAt)
	}
	return res.Markdown, nil
}

// ownRepo is the GitHub repository a report on ref is posted on, or ""
// (a Jira issue, no issue): cross-references to it may stay live.
func ownRepo(ref tracker.Ref) string {
	if ref.Source == tracker.GitHub {
		return ref.Repo
	}
	return ""
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// modelGlobals is g with an environment in which only the configuration
// speaks for the model: the API key comes from the variable it names, and
// the CLI's model variables (OPENAI_BASE_URL, RELAY_MODEL, …) are ignored.
func modelGlobals(g *globals, m serve.ModelConfig) *globals {
	return &globals{
		repo: g.repo, store: "", logLevel: g.logLevel, stdout: g.stdout, stderr: g.stderr, stdin: g.stdin, log: g.log,
		getenv: func(k string) string {
			switch k {
			case "OPENAI_API_KEY":
				if m.APIKeyEnv == "" {
					return ""
				}
				return g.getenv(m.APIKeyEnv)
			case "OPENAI_BASE_URL", "RELAY_MODEL", "RELAY_PLANNER_MODEL", "RELAY_RETRIEVER_MODEL", "RELAY_GAP_MODEL", "RELAY_PRICES", "RELAY_STORE":
				return ""
			}
			return g.getenv(k)
		},
	}
}

// serveIndexer brings a repository's store (graph and search index, kept
// across jobs under the state directory) up to date with a job's worktree.
// Indexing is by content hash, so a job at an unchanged tree re-indexes
// nothing.
type serveIndexer struct {
	g       *globals
	goProxy string             // relay.yaml go_proxy: index.Options.GoProxy
	budgets serve.IndexBudgets // relay.yaml's index: block
}

func newServeIndexer(g *globals, cfg *serve.Config) *serveIndexer {
	return &serveIndexer{g: g, goProxy: cfg.GoProxy, budgets: cfg.Index}
}

func (x *serveIndexer) Index(ctx context.Context, root, storeDir string) (serve.IndexStats, error) {
	key, err := x.g.storeKey()
	if err != nil {
		return serve.IndexStats{}, err
	}
	// The bot's stores are its own, under its state directory (never a
	// worktree's .relay), and are never trusted without the key's MAC.
	st, err := embedded.Open(storeDir, embedded.Options{Logger: x.g.log, Rebuild: true, Key: key})
	if err != nil {
		return serve.IndexStats{}, err
	}
	defer st.Close()
	sum, err := index.Run(ctx, st, index.Options{Root: root, Logger: x.g.log, GoProxy: x.goProxy, MaxFileBytes: x.budgets.MaxFileSize, MaxDepth: x.budgets.MaxDepth, ParseTimeout: x.budgets.ParseTimeout})
	var graph graphdb.Reader = st
	switch {
	case errors.Is(err, index.ErrNoSource):
		// No code graph for this repository: search alone ranks files.
		graph, sum = nil, index.Summary{Unchanged: true}
	case err != nil:
		return serve.IndexStats{}, err
	case !sum.Unchanged:
		if err := st.Warm(ctx); err != nil {
			return serve.IndexStats{}, fmt.Errorf("prepare the traversal index: %w", err)
		}
	}
	bs, err := retrieve.Build(ctx, root, graph, retrieve.BuildOptions{Dir: storeDir, Log: x.g.log, Key: key, SecretFiles: x.g.secrets})
	if err != nil {
		return serve.IndexStats{}, fmt.Errorf("build the search index: %w", err)
	}
	return serve.IndexStats{Unchanged: sum.Unchanged && bs.Changed == 0 && bs.Removed == 0, Files: bs.Files, Changed: sum.Changed + bs.Changed}, nil
}

// serveScoper runs the CLI's scope pipeline on a job's worktree: the agent
// with the configured model, or the offline context report without one.
type serveScoper struct {
	g *globals
	f *llmFlags
	m serve.ModelConfig
}

func (s *serveScoper) Scope(ctx context.Context, in serve.ScopeInput) (serve.Report, error) {
	// What the model is sent, the transcripts, the logs and the comment
	// pass the process-wide filter; it learns this checkout's secret-file
	// values before anything of the checkout is read.
	if err := addSecretValues(in.Log, in.Root, s.g.secrets); err != nil {
		return serve.Report{}, err
	}
	var graph graphdb.Reader
	key, err := s.g.storeKey()
	if err != nil {
		return serve.Report{}, err
	}
	st, err := embedded.Open(in.StoreDir, embedded.Options{ReadOnly: true, Logger: s.g.log, Key: key})
	switch {
	case err == nil:
		defer st.Close()
		graph = st
	case errors.Is(err, graphdb.ErrNotFound):
	default:
		return serve.Report{}, err
	}
	if !s.m.Configured() {
		srch, err := retrieve.Open(in.Root, graph, retrieve.OpenOptions{Dir: in.StoreDir, Log: s.g.log, Key: key, SecretFiles: s.g.secrets})
		if err != nil {
			return serve.Report{}, err
		}
		text, note := tracker.SplitCut(in.Issue.Text())
		rep, err := srch.Report(ctx, text, retrieve.ReportOptions{Dir: in.StoreDir})
		if err != nil {
			return serve.Report{}, err
		}
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		md, err := publishable(in.Log, s.g.secrets, in.Root, ownRepo(in.Issue.Ref), rep.Markdown())
		if err != nil {
			return serve.Report{}, err
		}
		return serve.Report{Markdown: md}, nil
	}
	f := *s.f
	mg := modelGlobals(s.g, s.m)
	// The repository's store directory holds its graph, its search index
	// and the transcripts of its jobs (the checkout is a per-job worktree).
	mg.store = in.StoreDir
	ctx, cancel := f.runContext(ctx)
	defer cancel()
	sess, err := f.newAgentOn(ctx, mg, in.Root, graph, nil)
	if err != nil {
		return serve.Report{}, err
	}
	defer sess.Close()
	sc, err := sess.runner.Scope(ctx, in.Issue.Text())
	if err = sess.explain(err); err != nil {
		// What the failed run cost is charged to the cost budget.
		var failed *agent.FailedRun
		if errors.As(err, &failed) {
			return serve.Report{Cost: failed.Usage.Cost}, err
		}
		return serve.Report{}, err
	}
	md, err := publishable(in.Log, s.g.secrets, in.Root, ownRepo(in.Issue.Ref), sc.Markdown)
	if err != nil {
		return serve.Report{}, err
	}
	rep := serve.Report{Markdown: md, Model: true, Tokens: map[string]int64{}, Cost: sc.Usage.Cost}
	for _, stg := range sc.Usage.Stages {
		rep.Tokens[string(stg.Stage)] += stg.PromptTokens + stg.CompletionTokens
	}
	in.Log.Info("scoped", "tokens", sc.Usage.Tokens(), "cost", sc.Usage.Cost, "stopped", sc.Stopped, "transcript", sc.Transcript)
	return rep, nil
}
