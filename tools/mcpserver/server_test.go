package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress/egresstest"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tools"
)

func needTools(t *testing.T) {
	t.Helper()
	testutil.Need(t, tools.InstallHint, "rg", "fd|fdfind")
}

// connect starts a server over reg in memory and returns a client session.
func connect(t *testing.T, reg *tools.Registry) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	srv := New(reg, Options{Version: "test"})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func repo(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tGreet()\n}\n",
		"greet/greet.go": "package greet\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if len(r.Content) != 1 {
		t.Fatalf("got %d content items, want 1", len(r.Content))
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", r.Content[0])
	}
	return tc.Text
}

func TestServerWithGoClient(t *testing.T) {
	needTools(t)
	reg, err := tools.Default(tools.Options{Root: repo(t)})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, reg)
	ctx := t.Context()

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "relay" || !strings.Contains(init.Instructions, "grep") {
		t.Errorf("initialize: server %+v, instructions %q", init.ServerInfo, init.Instructions)
	}

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		want, _ := reg.Get(tool.Name)
		if tool.Description != want.Description() {
			t.Errorf("%s description differs from the embedded one", tool.Name)
		}
		got, _ := json.Marshal(tool.InputSchema)
		var a, b any
		json.Unmarshal(got, &a)
		json.Unmarshal(want.Schema(), &b)
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("%s schema (-want +got):\n%s", tool.Name, diff)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	if diff := cmp.Diff([]string{"glob", "graph", "grep", "read"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"grep", "grep", map[string]any{"pattern": "Greet", "include": "*.go", "context": 0},
			"3 matching lines in 2 files for \"Greet\" in \"*.go\":\ngreet/greet.go:3:// Greet says hello.\ngreet/greet.go:4:func Greet() string { return \"hello\" }\n\nmain.go:4:\tGreet()", false},
		{"glob", "glob", map[string]any{"pattern": "**/greet.go"}, "1 file matches \"**/greet.go\" (newest first):\ngreet/greet.go", false},
		{"read", "read", map[string]any{"file": "main.go", "start_line": 3, "num_lines": 1}, "3\tfunc main() {\n(showing lines 3–3 of 5; continue with start_line=4)", false},
		{"graph without index", "graph", map[string]any{"operation": "callers", "target": "Greet"}, tools.NoIndexText(tools.Hints{}), true},
		{"bad arguments", "read", map[string]any{"path": "main.go"}, `invalid arguments for read: unknown field "path"`, true},
		{"escape", "read", map[string]any{"file": "../../etc/passwd"}, `path "../../etc/passwd" is outside the repository`, true},
		// grep's error texts quote the pattern; written /Serve((/ they
		// were taken for a path outside the repository and hidden.
		{"bad regex", "grep", map[string]any{"pattern": "Serve(("}, "Invalid regex for grep \"Serve((\":\nregex parse error:", true},
		{"bad regex with a slash", "grep", map[string]any{"pattern": "api/v1(("}, "Invalid regex for grep \"api/v1((\":\nregex parse error:", true},
		{"bad include", "grep", map[string]any{"pattern": "/x", "include": "[a"}, "Invalid include glob for grep \"/x\" in \"[a\":", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			got := text(t, res)
			if strings.Contains(got, OutsidePath) {
				t.Errorf("the answer hides a path it need not: %q", got)
			}
			if tc.isError {
				if !strings.HasPrefix(got, tc.want) {
					t.Errorf("got %q, want it to start with %q", got, tc.want)
				}
			} else if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if res.IsError != tc.isError {
				t.Errorf("isError = %v, want %v", res.IsError, tc.isError)
			}
		})
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "write"`) {
		t.Errorf("unknown tool: err = %v", err)
	}
}

// failing is a tool whose infrastructure fails or panics with a message
// naming a file inside the repository and one outside it.
type failing struct {
	panics bool
	root   string
	err    error // returned instead, when set
}

func (f failing) Name() string            { return "boom" }
func (f failing) Description() string     { return "fails" }
func (f failing) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f failing) Call(context.Context, json.RawMessage) (tools.Result, error) {
	if f.err != nil {
		return tools.Result{}, f.err
	}
	msg := fmt.Sprintf("open %s: permission denied (via %s)", filepath.Join(f.root, "pkg", "a.go"), filepath.Join(os.TempDir(), "elsewhere", "b.go"))
	if f.panics {
		panic("kaboom: " + msg)
	}
	return tools.Result{}, fmt.Errorf("%s: %w", msg, os.ErrPermission)
}

// TestServerInfrastructureFailure: a tool's Go error or panic reaches the
// client as an isError result, with the repository's paths relative and
// no path outside it.
func TestServerInfrastructureFailure(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		panics bool
		err    error
		want   string
	}{
		{false, nil, "relay: the boom tool failed: open pkg/a.go: permission denied (via " + OutsidePath + "): permission denied"},
		{true, nil, "relay: the boom tool failed unexpectedly: kaboom: open pkg/a.go: permission denied (via " + OutsidePath + ")"},
		// An error relay has advice for ends with the advice for MCP:
		// what the client's user runs in the repository.
		{false, fmt.Errorf("graph: %w", &graphdb.NoIndexError{Where: filepath.Join(root, ".relay")}),
			"relay: the boom tool failed: graph: no index at .relay; run `relay index` in the repository root, then retry"},
	}
	for _, tc := range tests {
		reg := tools.NewRegistry(failing{panics: tc.panics, root: root, err: tc.err})
		srv := New(reg, Options{Root: root})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, text(t, res)); diff != "" || !res.IsError {
			t.Errorf("panics=%v: isError=%v (-want +got):\n%s", tc.panics, res.IsError, diff)
		}
	}
}

// TestServerRedactsErrorResults: an isError result naming a path outside
// the repository reaches the client without it, unless the client sent
// that path itself; successful results are never rewritten.
func TestServerRedactsErrorResults(t *testing.T) {
	root := t.TempDir()
	type params struct {
		File    string `json:"file"`
		IsError bool   `json:"is_error"`
	}
	leaky := tools.New("leaky", "quotes paths", json.RawMessage(`{"type":"object"}`),
		func(_ context.Context, p params) (tools.Result, error) {
			return tools.Result{Content: fmt.Sprintf("%s resolves to /var/secret/target, beside %s", p.File, filepath.Join(root, "in.go")), IsError: p.IsError}, nil
		})
	reg := tools.NewRegistry(leaky)
	srv := New(reg, Options{Root: root})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tests := []struct {
		name    string
		file    string
		isError bool
		want    string
	}{
		{"error", "/etc/link", true, "/etc/link resolves to " + OutsidePath + ", beside in.go"},
		{"error quoting the client's path", "/var/secret/target", true, "/var/secret/target resolves to /var/secret/target, beside in.go"},
		{"success is untouched", "/etc/link", false, "/etc/link resolves to /var/secret/target, beside " + filepath.Join(root, "in.go")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "leaky", Arguments: map[string]any{"file": tc.file, "is_error": tc.isError}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, text(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestServerRedactsSecrets reads and greps the canary repository over MCP:
// the values in its source (a token in a Go constant, keys in YAML) are
// redacted, and its secret-bearing files are refused.
func TestServerRedactsSecrets(t *testing.T) {
	needTools(t)
	root := egresstest.Repo(t)
	reg, err := tools.Default(tools.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, reg)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"file": "internal/sms/token.go"}},
		{"read", map[string]any{"file": "config/app.yml"}},
		{"read", map[string]any{"file": ".env"}},
		{"grep", map[string]any{"pattern": "(?i)token|key|password|secret"}},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		got := text(t, res)
		if leaks := egresstest.Leaks(got); len(leaks) > 0 {
			t.Errorf("%s %v leaked %v:\n%s", c.tool, c.args, leaks, got)
		}
		if c.tool == "read" && c.args["file"] != ".env" && !strings.Contains(got, "[redacted: ") {
			t.Errorf("%s %v: nothing redacted:\n%s", c.tool, c.args, got)
		}
	}
}
