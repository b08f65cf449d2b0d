//go:build integration

package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/tools"
)

// TestLiveScope scopes a sample issue against examples/sample with a real
// model. It runs only with -tags integration and an endpoint configured:
// OPENAI_API_KEY and/or OPENAI_BASE_URL, and RELAY_MODEL (default
// gpt-4o-mini).
func TestLiveScope(t *testing.T) {
	base, key := os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
	if base == "" && key == "" {
		t.Skip("set OPENAI_API_KEY or OPENAI_BASE_URL (and RELAY_MODEL) to run live-model tests")
	}
	model := os.Getenv("RELAY_MODEL")
	if model == "" {
		model = "gpt-4o-mini"
	}
	root, err := filepath.Abs("../examples/sample")
	if err != nil {
		t.Fatal(err)
	}
	issue, err := os.ReadFile("../examples/issues/sms-duplicates.md")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Default(tools.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	r, err := agent.New(agent.Options{
		Client:           agent.NewRetryClient(agent.NewOpenAIClient(base, key, nil), agent.RetryOptions{}),
		Tools:            reg,
		Root:             root,
		Models:           agent.Models{Planner: model},
		RetrieverSoftCap: 8,
		RetrieverTimeout: 2 * time.Minute,
		PlannerMaxSteps:  3,
		Budget:           agent.Budget{MaxTokens: 400_000},
		RunsDir:          t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Scope(t.Context(), string(issue))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped=%q structured=%v tokens=%d transcript=%s\n%s", s.Stopped, s.Structured, s.Usage.Tokens(), s.Transcript, s.Markdown)
	if len(s.Retrievals) == 0 {
		t.Error("the planner started no retriever")
	}
	if !strings.Contains(s.Markdown, "notify/") {
		t.Error("the report does not mention the notify package")
	}
}
