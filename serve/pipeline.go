package serve

import (
	"context"
	"errors"
	"log/slog"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

// Pipeline is the bot's work on a job's worktree, through package
// workspace, the code relay index and relay scope run: Index brings the
// repository's store up to date (Indexer), Scope writes the report
// (Scoper). The stores are the bot's own, under its state directory (never
// a worktree's .relay), and are never trusted without the key's MAC.
type Pipeline struct {
	// KeyFile is the store key (workspace.Options.KeyFile).
	KeyFile string
	// SecretFiles is the secret-bearing file policy: relay.yaml's
	// secret_files with the command line's patterns.
	SecretFiles *egress.FilePolicy
	// Log receives the pipeline's records.
	Log *slog.Logger
	// GoProxy is relay.yaml's go_proxy (index.Options.GoProxy).
	GoProxy string
	// Budgets are relay.yaml's index: block.
	Budgets IndexBudgets
	// Model says a model endpoint is configured; Agent is its
	// configuration (AgentConfig). Without one Scope posts the offline
	// report.
	Model bool
	Agent agent.Config
}

// NewPipeline is the pipeline cfg describes; secret reads the variables
// the configuration names (the model's key). A model section that cannot
// be used is an error naming relay.yaml's keys.
func NewPipeline(cfg *Config, secret func(string) string, keyFile string, secrets *egress.FilePolicy, log *slog.Logger) (*Pipeline, error) {
	acfg, err := AgentConfig(cfg.Model, secret)
	if err != nil {
		return nil, err
	}
	return &Pipeline{KeyFile: keyFile, SecretFiles: secrets, Log: log, GoProxy: cfg.GoProxy, Budgets: cfg.Index,
		Model: cfg.Model.Configured(), Agent: acfg}, nil
}

// workspace is the workspace of a job's worktree root with the
// repository's store in storeDir.
func (p *Pipeline) workspace(root, storeDir string, log *slog.Logger) *workspace.Workspace {
	if log == nil {
		log = p.log()
	}
	return workspace.New(workspace.Options{Root: root, Store: storeDir, KeyFile: p.KeyFile, SecretFiles: p.SecretFiles, Log: log, Hints: advice.ToolHints(advice.Operator)})
}

// Index implements Indexer: workspace.Index of the worktree root into
// storeDir, by content hash, so a job at an unchanged tree re-indexes
// nothing. A repository without source relay builds a graph for gets its
// search index alone.
func (p *Pipeline) Index(ctx context.Context, root, storeDir string) (IndexStats, error) {
	res, err := p.workspace(root, storeDir, nil).Index(ctx, workspace.IndexOptions{
		GoProxy: p.GoProxy, MaxFileBytes: p.Budgets.MaxFileSize, MaxDepth: p.Budgets.MaxDepth, ParseTimeout: p.Budgets.ParseTimeout,
		SearchWithoutGraph: true,
	})
	if err != nil {
		return IndexStats{}, err
	}
	sum, bs := res.Graph, res.Search
	return IndexStats{Unchanged: sum.Unchanged && bs.Changed == 0 && bs.Removed == 0, Files: bs.Files, Changed: sum.Changed + bs.Changed}, nil
}

// Scope implements Scoper: the agent of the configured model (Agent) on
// the job's worktree, or without one the offline context report, both
// through the job's workspace. What the model is sent, the transcripts,
// the logs and the comment pass the process-wide filter, which learns the
// worktree's secret-file values before anything of it is read; the report
// is published with the same values, read once.
func (p *Pipeline) Scope(ctx context.Context, in ScopeInput) (Report, error) {
	if in.Log == nil {
		in.Log = p.log()
	}
	ws := p.workspace(in.Root, in.StoreDir, in.Log)
	defer ws.Close()
	if _, err := ws.SecretValues(); err != nil {
		return Report{}, err
	}
	repo := OwnRepo(in.Issue.Ref)
	if !p.Model {
		res, err := ws.OfflineReport(ctx, in.Issue.Text(), workspace.OfflineOptions{Repo: repo})
		if err != nil {
			return Report{}, err
		}
		return Report{Markdown: res.Markdown, Localization: offlineLocalization(res.Report)}, nil
	}
	var graph graphdb.Reader
	st, err := ws.OpenStore(ctx, false)
	switch {
	case err == nil:
		defer st.Close()
		graph = st
	case errors.Is(err, graphdb.ErrNotFound):
	default:
		return Report{}, err
	}
	if p.Agent.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Agent.Timeout)
		defer cancel()
	}
	// The repository's store directory holds its graph, its search index
	// and the transcripts of its jobs (the checkout is a per-job worktree).
	a, err := ws.Agent(ctx, p.Agent, workspace.AgentOptions{Graph: graph})
	if err != nil {
		return Report{}, advice.ConfigNamesFor(advice.Operator).Advise(err, p.Agent)
	}
	defer a.Close()
	sc, err := a.Scope(ctx, in.Issue.Text().String())
	if err = advice.ConfigNamesFor(advice.Operator).Explain(err, p.Agent); err != nil {
		// What the failed run cost is charged to the cost budget.
		var failed *agent.FailedRun
		if errors.As(err, &failed) {
			return Report{Cost: failed.Usage.Cost}, err
		}
		return Report{}, err
	}
	md, err := ws.Publish(in.Log, repo, sc.Markdown)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Markdown: md, Model: true, Tokens: map[string]int64{}, Cost: sc.Usage.Cost}
	rep.Localization = searchLocalization(ctx, ws, graph, in.Issue.Text().String(), in.Log)
	for _, stg := range sc.Usage.Stages {
		rep.Tokens[string(stg.Stage)] += stg.PromptTokens + stg.CompletionTokens
	}
	in.Log.Info("scoped", "tokens", sc.Usage.Tokens(), "cost", sc.Usage.Cost, "stopped", sc.Stopped, "transcript", sc.Transcript)
	return rep, nil
}

// OwnRepo is the GitHub repository a report on ref is posted on, or ""
// (a Jira issue, no issue): cross-references to it may stay live.
func OwnRepo(ref tracker.Ref) string {
	if ref.Source == tracker.GitHub {
		return ref.Repo
	}
	return ""
}

// log is the pipeline's logger; nil discards.
func (p *Pipeline) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}
