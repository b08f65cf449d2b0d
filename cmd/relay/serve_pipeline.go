package main

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
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
	// values before anything of the checkout is read, and the report is
	// published with the same values, read once.
	ws := workspace.New(workspace.Options{Root: in.Root, Store: in.StoreDir, KeyFile: s.g.keyFile(), SecretFiles: s.g.secrets, Log: in.Log})
	defer ws.Close()
	if _, err := ws.SecretValues(); err != nil {
		return serve.Report{}, err
	}
	if !s.m.Configured() {
		res, err := ws.OfflineReport(ctx, in.Issue.Text(), workspace.OfflineOptions{Repo: ownRepo(in.Issue.Ref)})
		if err != nil {
			return serve.Report{}, err
		}
		return serve.Report{Markdown: res.Markdown}, nil
	}
	var graph graphdb.Reader
	st, err := ws.OpenStore(ctx, false)
	switch {
	case err == nil:
		defer st.Close()
		graph = st
	case errors.Is(err, graphdb.ErrNotFound):
	default:
		return serve.Report{}, err
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
	md, err := ws.Publish(in.Log, ownRepo(in.Issue.Ref), sc.Markdown)
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
