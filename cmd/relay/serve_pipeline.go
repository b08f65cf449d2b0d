package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/publish"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// botAgentConfig is the agent configuration of relay.yaml's model section,
// with its defaults (agent.Config.SetDefaults); max_tokens 0 means no
// limit, as on the command line. Only the configuration speaks for the
// model: the key comes from the variable api_key_env names, and the CLI's
// variables (OPENAI_BASE_URL, RELAY_MODEL, …) do not count. Without a
// model endpoint the section is not checked further (the bot posts the
// offline report); with one, its problems name relay.yaml's keys.
func botAgentConfig(m serve.ModelConfig, getenv func(string) string) (agent.Config, error) {
	c := agent.Config{
		BaseURL: m.BaseURL, Model: m.Model,
		Models:    agent.Models{Planner: m.PlannerModel, Retriever: m.RetrieverModel, Gap: m.GapModel},
		MaxTokens: m.MaxTokens, MaxCost: m.MaxCost, Parallel: m.Parallel, PlannerSteps: m.PlannerSteps,
		RetrieverSteps: m.RetrieverSteps, RetrieverTimeout: m.RetrieverTimeout, RequestTimeout: m.RequestTimeout,
		Timeout: m.Timeout, Retries: m.Retries, NoJSONMode: m.NoJSONMode,
	}
	if m.MaxTokens == 0 {
		c.MaxTokens = agent.NoLimit
	}
	if m.APIKeyEnv != "" {
		c.APIKey = getenv(m.APIKeyEnv)
	}
	c.SetDefaults()
	if !m.Configured() {
		return c, nil
	}
	names := make([]string, 0, len(m.Prices))
	for name := range m.Prices {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		model, p, err := agent.ParsePrice(name + "=" + m.Prices[name])
		if err != nil {
			return c, fmt.Errorf("model.prices: %w", err)
		}
		c.Prices[model] = p
	}
	return c, botSettings.advise(c.Validate(), c)
}

// botSettings names relay.yaml's keys of the model section.
var botSettings = settingNames{
	fields: map[string]string{
		"Parallel": "model.parallel", "PlannerSteps": "model.planner_steps", "RetrieverSteps": "model.retriever_steps",
		"Retries": "model.retries", "RequestTimeout": "model.request_timeout", "RetrieverTimeout": "model.retriever_timeout",
		"Timeout": "model.timeout", "MaxTokens": "model.max_tokens", "MaxCost": "model.max_cost",
	},
	noModel:        "set model.model in relay.yaml, e.g. model: qwen2.5-coder:14b for Ollama",
	noPrices:       "set model.prices in relay.yaml (model: in/out per million tokens)",
	requestTimeout: "model.request_timeout",
	retries:        "model.retries",
	baseURL:        "model.base_url in relay.yaml",
	offline:        "without a model, leave out model.base_url and model.api_key_env for the offline report",
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
	g   *globals
	cfg agent.Config // botAgentConfig's
	m   serve.ModelConfig
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
	ctx, cancel := runContext(ctx, s.cfg.Timeout)
	defer cancel()
	sess, err := startAgent(ctx, s.jobGlobals(in.StoreDir), s.cfg, &botSettings, in.Root, graph, nil)
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

// jobGlobals is the process's globals for one job: the repository's store
// directory holds its graph, its search index and the transcripts of its
// jobs (the checkout is a per-job worktree), and neither --state nor a
// foreign store's trust applies.
func (s *serveScoper) jobGlobals(storeDir string) *globals {
	g := s.g
	return &globals{
		repo: g.repo, store: storeDir, logLevel: g.logLevel, stdout: g.stdout, stderr: g.stderr, stdin: g.stdin, log: g.log, surface: advice.Operator,
		getenv: g.getenv, secrets: g.secrets,
	}
}
