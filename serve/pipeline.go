package serve

import (
	"context"
	"log/slog"

	"github.com/relayhq/relay/internal/egress"
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
}

// NewPipeline is the pipeline cfg describes.
func NewPipeline(cfg *Config, keyFile string, secrets *egress.FilePolicy, log *slog.Logger) *Pipeline {
	return &Pipeline{KeyFile: keyFile, SecretFiles: secrets, Log: log, GoProxy: cfg.GoProxy, Budgets: cfg.Index}
}

// workspace is the workspace of a job's worktree root with the
// repository's store in storeDir.
func (p *Pipeline) workspace(root, storeDir string, log *slog.Logger) *workspace.Workspace {
	if log == nil {
		log = p.Log
	}
	return workspace.New(workspace.Options{Root: root, Store: storeDir, KeyFile: p.KeyFile, SecretFiles: p.SecretFiles, Log: log})
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
