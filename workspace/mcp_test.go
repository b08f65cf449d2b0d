package workspace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/relayhq/relay/tools"
)

// TestMCPToolsIndexLater: relay's MCP server starts on a repository
// without an index; its graph tool answers that there is none, and once
// the repository is indexed the next call opens the index and answers.
func TestMCPToolsIndexLater(t *testing.T) {
	t.Parallel()
	root := sampleRepo(t)
	o, _ := testOptions(t, root)
	w := New(o)
	reg, graph, err := w.MCPTools(t.Context(), tools.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	if got := graph.Status(); got != "no index" {
		t.Errorf("Status before indexing = %q, want no index", got)
	}
	for _, name := range []string{tools.GraphName, "grep", "glob", "read"} {
		if !strings.Contains(strings.Join(reg.Names(), ","), name) {
			t.Errorf("tools %v lack %s", reg.Names(), name)
		}
	}
	args := json.RawMessage(`{"operation": "callers", "target": "Service.Send"}`)
	res, err := graph.Call(t.Context(), args)
	if err != nil || !res.IsError || res.Content != tools.NoIndexText(tools.Hints{}) {
		t.Errorf("graph before indexing = %+v, %v; want the no-index answer", res, err)
	}
	if _, err := w.Index(t.Context(), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = graph.Call(t.Context(), args)
	if err != nil || res.IsError || graph.Status() != "ready" {
		t.Errorf("graph after indexing = %+v, %v (status %s); want an answer", res, err, graph.Status())
	}
}
