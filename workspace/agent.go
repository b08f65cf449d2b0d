package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tools"
)

// Agent is the agent runtime over the workspace: the planner and
// retrievers of an agent.Config with grep, glob, read and graph tools over
// the repository (search too, when relay index has built its index), and
// transcripts in the state directory. Close releases it.
type Agent struct {
	*agent.Runner
	closers []io.Closer
}

// AgentOptions configure Workspace.Agent.
type AgentOptions struct {
	// Graph is the code graph of the graph and search tools; nil opens the
	// workspace's store when it has one (Close then closes it), and
	// without one the graph tool tells the model there is none.
	Graph graphdb.Reader
	// Progress receives the run's progress; may be nil.
	Progress func(agent.Progress)
}

// Agent builds the agent runtime of cfg over the workspace
// (agent.NewFromConfig; its errors are Validate's for an unusable cfg).
func (w *Workspace) Agent(ctx context.Context, cfg agent.Config, o AgentOptions) (*Agent, error) {
	a := &Agent{}
	reg, err := w.agentTools(ctx, o.Graph, a)
	if err != nil {
		a.Close()
		return nil, err
	}
	runsDir := ""
	if !cfg.NoTranscript {
		if runsDir, err = w.runsDir(); err != nil {
			a.Close()
			return nil, err
		}
	}
	a.Runner, err = agent.NewFromConfig(cfg, agent.Deps{Tools: reg, Root: w.o.Root, RunsDir: runsDir, Log: w.o.Log, Progress: o.Progress})
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close releases the runner and the store Agent opened.
func (a *Agent) Close() error {
	var errs []error
	for _, c := range a.closers {
		errs = append(errs, c.Close())
	}
	if a.Runner != nil {
		a.Runner.Close()
	}
	return errors.Join(errs...)
}

// runsDir returns where transcripts go: runs/ in the state directory, or
// "" (none) when that directory cannot be written, which is said.
func (w *Workspace) runsDir() (string, error) {
	dir, err := w.StateDir()
	if err != nil {
		return "", err
	}
	if !Writable(dir) {
		var fixes []string
		if a := w.o.Advice.writable(); a != "" {
			fixes = append(fixes, a)
		}
		if a := w.o.Advice.NoTranscript; a != "" {
			fixes = append(fixes, "or "+a)
		}
		msg := fmt.Sprintf("relay: %s cannot be written, so no transcript is kept", dir)
		if len(fixes) > 0 {
			msg += " (" + strings.Join(fixes, ", ") + ")"
		}
		w.notify(msg)
		return "", nil
	}
	if dir, err = w.PrepareStateDir(); err != nil {
		return "", err
	}
	return filepath.Join(dir, "runs"), nil
}

// agentTools builds grep/glob/read/graph over the repository; the graph
// tool uses graph, or else the index when one exists, and otherwise tells
// the model there is none. The search tool joins when the search index is
// there and sound.
func (w *Workspace) agentTools(ctx context.Context, graph graphdb.Reader, a *Agent) (*tools.Registry, error) {
	root, log := w.o.Root, w.o.Log
	if graph == nil {
		st, err := w.OpenStore(ctx, false)
		switch {
		case err == nil:
			graph = st
			a.closers = append(a.closers, st)
		case errors.Is(err, graphdb.ErrNotFound):
			log.Info("no code graph index; the graph tool will say so", "root", root)
		default:
			return nil, err
		}
	}
	reg, err := tools.Default(tools.Options{Root: root, Graph: graph, Logger: log, Private: w.PrivateDirs(), SecretFiles: w.o.SecretFiles, Hints: w.o.Hints})
	if err != nil {
		return nil, err
	}
	srch, err := w.OpenSearcher(graph, nil)
	switch {
	case err == nil:
		reg.Add(tools.NewSearch(srch))
	case errors.Is(err, retrieve.ErrNoIndex):
		log.Info("no search index; the agents get grep, glob, read and graph only", "root", root)
	case errors.Is(err, retrieve.ErrIndexDamaged):
		// The agents can work without it; never search damaged data.
		w.notify(fmt.Sprintf("relay: %v\nrelay: the agents get grep, glob, read and graph only", err))
	case IsConfig(err):
		return nil, err
	default:
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return reg, nil
}
