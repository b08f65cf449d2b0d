package workspace

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tracker"
)

// ScopeOptions configure Workspace.Scope.
type ScopeOptions struct {
	// Agent scopes the issue; nil writes the offline report instead
	// (OfflineReport with Offline).
	Agent *Agent
	// Repo is the GitHub repository (owner/name) the report may be posted
	// on: its cross-references stay live. "" neutralises them all.
	Repo string
	// Offline configures the offline report; its Repo is Repo.
	Offline OfflineOptions
}

// Scoped is one issue scoped, every text of it made safe to post.
type Scoped struct {
	// Markdown is the report.
	Markdown string
	// JSON is the report as a file holds it: the agent's Scoping
	// (published by PublishScoping), or the offline report with the issue
	// as published (Offline.JSON).
	JSON []byte
	// Scoping is the agent's run; nil for the offline report.
	Scoping *agent.Scoping
}

// Scope scopes issue: the agent's run (o.Agent) published with
// PublishScoping, or without an agent the offline context report. The
// agent's errors come back as the run returned them (ConfigNames.Explain adds
// what to check); the offline report's, as OfflineReport's.
func (w *Workspace) Scope(ctx context.Context, issue tracker.Text, o ScopeOptions) (Scoped, error) {
	if o.Agent == nil {
		off := o.Offline
		off.Repo = o.Repo
		res, err := w.OfflineReport(ctx, issue, off)
		if err != nil {
			return Scoped{}, err
		}
		js, err := res.JSON("scope")
		if err != nil {
			return Scoped{}, err
		}
		return Scoped{Markdown: res.Markdown, JSON: js}, nil
	}
	s, err := o.Agent.Scope(ctx, issue.String())
	if err != nil {
		return Scoped{}, err
	}
	// What is shown, written and posted is the report made safe to
	// publish, every text of the JSON included.
	if err := w.PublishScoping(w.o.Log, o.Repo, s); err != nil {
		return Scoped{}, err
	}
	js, err := ScopingJSON(s)
	if err != nil {
		return Scoped{}, err
	}
	return Scoped{Markdown: s.Markdown, JSON: js, Scoping: s}, nil
}

// Empty says that the agent's run stopped early (a deadline, a budget)
// before the model contributed anything: written out, its report would be
// empty yet count as finished. The offline report is never empty.
func (s Scoped) Empty() bool {
	sc := s.Scoping
	if sc == nil || sc.Stopped == "" || sc.Structured {
		return false
	}
	for _, r := range sc.Retrievals {
		if !r.Incomplete || r.ToolCalls > 0 {
			return false
		}
	}
	return true
}

// ScopingJSON encodes a Scoping for files, indented, with a final newline.
func ScopingJSON(s *agent.Scoping) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode scoping report: %w", err)
	}
	return append(b, '\n'), nil
}

// JSON encodes the offline report for files, indented, with a final
// newline: kind ("ask" or "scope"), the input and markdown as published,
// and the ranked files and symbols (the repository's own code, from an
// index without secret-bearing files; post the markdown, not these).
func (r Offline) JSON(kind string) ([]byte, error) {
	js, err := json.MarshalIndent(struct {
		Kind     string `json:"kind"`
		Input    string `json:"input"`
		Offline  bool   `json:"offline"`
		Markdown string `json:"markdown"`
		retrieve.Report
	}{kind, r.Input, true, r.Markdown, r.Report}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}
