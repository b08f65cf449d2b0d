package workspace

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/tracker"
)

// TestScopeOffline: without an agent, Scope writes the offline report,
// indexing first when asked, and its JSON says so: kind scope, offline,
// the issue and markdown as published.
func TestScopeOffline(t *testing.T) {
	t.Parallel()
	const issue = "Customers receive the same SMS twice when the provider times out"
	root := sampleRepo(t)
	o, _ := testOptions(t, root)
	w := New(o)
	defer w.Close()
	sc, err := w.Scope(t.Context(), tracker.CapText(issue), ScopeOptions{Offline: OfflineOptions{IndexFirst: &IndexOptions{}}})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Scoping != nil || sc.Empty() || sc.Markdown == "" {
		t.Fatalf("offline scoping %+v, empty %v; want a markdown report and no agent run", sc.Scoping, sc.Empty())
	}
	var got struct {
		Kind     string `json:"kind"`
		Input    string `json:"input"`
		Offline  bool   `json:"offline"`
		Markdown string `json:"markdown"`
		Files    []any  `json:"files"`
	}
	if err := json.Unmarshal(sc.JSON, &got); err != nil {
		t.Fatalf("JSON: %v\n%s", err, sc.JSON)
	}
	if got.Kind != "scope" || !got.Offline || got.Input != issue || got.Markdown != sc.Markdown || len(got.Files) == 0 {
		t.Errorf("JSON kind %q, offline %v, input %q, %d files, markdown equal %v; want scope, true, the issue, files, the report's markdown",
			got.Kind, got.Offline, got.Input, len(got.Files), got.Markdown == sc.Markdown)
	}
	if n := len(sc.JSON); n == 0 || sc.JSON[n-1] != '\n' {
		t.Errorf("JSON does not end in a newline")
	}
}

// TestScopedEmpty: only an agent run that stopped early before the model
// contributed anything (no structured report, every retrieval incomplete
// without a tool call) is empty.
func TestScopedEmpty(t *testing.T) {
	t.Parallel()
	idle := &agent.Report{Incomplete: true}
	tests := []struct {
		name string
		s    *agent.Scoping
		want bool
	}{
		{"offline", nil, false},
		{"finished", &agent.Scoping{Retrievals: []*agent.Report{idle}}, false},
		{"stopped, nothing gathered", &agent.Scoping{Stopped: "timeout", Retrievals: []*agent.Report{idle}}, true},
		{"stopped before any retrieval", &agent.Scoping{Stopped: "budget: tokens"}, true},
		{"stopped with a structured report", &agent.Scoping{Stopped: "timeout", Structured: true}, false},
		{"stopped after a tool call", &agent.Scoping{Stopped: "timeout", Retrievals: []*agent.Report{idle, {Incomplete: true, ToolCalls: 1}}}, false},
		{"stopped after a complete retrieval", &agent.Scoping{Stopped: "timeout", Retrievals: []*agent.Report{{}}}, false},
	}
	for _, tt := range tests {
		if got := (Scoped{Scoping: tt.s}).Empty(); got != tt.want {
			t.Errorf("%s: Empty() = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestScopingJSON: a scoping encodes indented, with a final newline, and
// decodes to itself.
func TestScopingJSON(t *testing.T) {
	t.Parallel()
	in := &agent.Scoping{Markdown: "# Report", Stopped: "timeout", Structured: true}
	b, err := ScopingJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var out agent.Scoping
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Markdown+in.Stopped, out.Markdown+out.Stopped); diff != "" || b[len(b)-1] != '\n' || b[1] != '\n' {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, b)
	}
}
