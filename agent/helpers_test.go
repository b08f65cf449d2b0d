package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/tools"
)

// writeRepo creates a tiny checkout: files maps relative paths to contents.
func writeRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// sampleRepo has notify/sms.go with 12 lines.
var sampleRepo = map[string]string{
	"notify/sms.go": strings.Repeat("// line\n", 11) + "func Send() {}\n",
	"go.mod":        "module example.com/sample\n",
}

type echoArgs struct {
	Text string `json:"text"`
}

var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)

// echoTool returns "echo: <text>".
func echoTool(name string) tools.Tool {
	return tools.New(name, "Echo the text back.", echoSchema, func(_ context.Context, a echoArgs) (tools.Result, error) {
		return tools.Result{Content: "echo: " + a.Text}, nil
	})
}

// newRunner builds a Runner with test-friendly defaults; mod adjusts options.
func newRunner(t testing.TB, c agent.ChatClient, reg *tools.Registry, mod func(*agent.Options)) *agent.Runner {
	t.Helper()
	o := agent.Options{
		Client:           c,
		Tools:            reg,
		Root:             writeRepo(t, sampleRepo),
		Models:           agent.Models{Planner: "planner-model", Retriever: "retriever-model", Gap: "gap-model"},
		RetrieverTimeout: 10 * time.Second,
		NewID:            func() string { return "run1" },
		Now:              func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	if mod != nil {
		mod(&o)
	}
	r, err := agent.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
