package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
)

// TestMCPInProcess serves `relay mcp` from run() over pipes and drives it
// with the go-sdk client.
func TestMCPInProcess(t *testing.T) {
	needRgFd(t)
	root := tinyRepo(t)
	if code, _, stderr := relay(t, "", "--repo", root, "index"); code != 0 {
		t.Fatalf("relay index: exit %d: %s", code, stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		code := run(ctx, []string{"--repo", root, "mcp"}, inR, outW, &stderr, func(string) string { return "" })
		outW.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"glob", "graph", "grep", "read"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "graph", Arguments: map[string]any{"operation": "callers", "target": "Twice"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "Callers of example.com/demo/greet.Twice (depth 1):\n1. example.com/demo.main (main.go:5) function — calls at main.go:6\nUse read to fetch full code for any of these files."
	if got := res.Content[0].(*mcp.TextContent).Text; got != want || res.IsError {
		t.Errorf("graph: isError=%v (-want +got):\n%s", res.IsError, cmp.Diff(want, got))
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("relay mcp exited %d after the client left; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("relay mcp did not exit after the client closed stdin")
	}
}

// mcpProc is `relay mcp` run in-process on pipes.
type mcpProc struct {
	in     *io.PipeWriter
	out    *io.PipeReader
	done   chan int
	stderr *syncBuffer
}

// startMCP runs relay with args (ending in "mcp") on pipes.
func startMCP(t *testing.T, args ...string) *mcpProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &mcpProc{in: inW, out: outR, done: make(chan int, 1), stderr: &syncBuffer{}}
	go func() {
		code := run(ctx, args, inR, outW, p.stderr, func(string) string { return "" })
		outW.Close()
		inR.Close()
		p.done <- code
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return p
}

// client connects the Go SDK client to p.
func (p *mcpProc) client(t *testing.T) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, p.stderr.String())
	}
	return cs
}

// wait returns relay's exit status after its stdin was closed.
func (p *mcpProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-p.done:
		return code
	case <-time.After(time.Minute):
		t.Fatal("relay mcp did not exit after its stdin closed")
	}
	return -1
}

// syncBuffer is a strings.Builder safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestMCPGraphUnavailable (issue 9 item 6): without a usable graph index
// relay mcp still starts, grep/glob/read work, and graph answers why it is
// unavailable and what to do, naming no path outside the repository.
func TestMCPGraphUnavailable(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, "graph.db"), []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyDB := t.TempDir()
	if err := os.WriteFile(filepath.Join(emptyDB, "graph.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dirDB := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirDB, "graph.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		store string // --store; "" for <repo>/.relay
		want  []string
	}{
		{"no index", "", []string{tools.NoIndexText(advice.ToolHints(advice.MCP))}},
		{"empty graph.db", emptyDB, []string{tools.NoIndexText(advice.ToolHints(advice.MCP))}},
		{"garbage graph.db", garbage, []string{"The code graph is unavailable: ", "is damaged (graph.db: file is not a database", "Run `relay index` in the repository root to rebuild it, then retry.", "grep, glob and read work meanwhile"}},
		{"graph.db is a directory", dirDB, []string{"The code graph is unavailable: open graph store " + mcpserver.OutsidePath + ": ",
			"Rebuild it with `relay index` in the repository root (or make the index readable", "grep, glob and read work meanwhile"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := tinyRepo(t)
			args := []string{"--repo", root, "mcp"}
			if tc.store != "" {
				args = append([]string{"--store", tc.store}, args...)
			}
			p := startMCP(t, args...)
			cs := p.client(t)
			got, isErr := callText(t, cs, "graph", map[string]any{"operation": "callers", "target": "Greet"})
			if !isErr {
				t.Errorf("graph: isError=false: %s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("graph answer lacks %q:\n%s", w, got)
				}
			}
			for _, dir := range []string{root, tc.store, os.TempDir()} {
				if dir != "" && strings.Contains(got, dir) {
					t.Errorf("graph answer reveals %s:\n%s", dir, got)
				}
			}
			if got, isErr := callText(t, cs, "graph", map[string]any{"operation": "callers", "target": "Greet", "path": "x"}); !isErr || !strings.Contains(got, `invalid arguments for graph: unknown field "path"`) {
				t.Errorf("graph with a bad argument: isError=%v %s", isErr, got)
			}
			if got, isErr := callText(t, cs, "grep", map[string]any{"pattern": "func Greet", "context": 0}); isErr || !strings.Contains(got, "greet/greet.go:4:") {
				t.Errorf("grep: isError=%v %s", isErr, got)
			}
			if got, isErr := callText(t, cs, "glob", map[string]any{"pattern": "**/*.go"}); isErr || !strings.Contains(got, "2 files match") {
				t.Errorf("glob: isError=%v %s", isErr, got)
			}
			if got, isErr := callText(t, cs, "read", map[string]any{"file": "main.go", "num_lines": 1}); isErr || !strings.HasPrefix(got, "1\tpackage main") {
				t.Errorf("read: isError=%v %s", isErr, got)
			}
			cs.Close()
			if code := p.wait(t); code != 0 {
				t.Errorf("relay mcp exited %d; stderr:\n%s", code, p.stderr.String())
			}
		})
	}
}

// TestMCPGraphAfterIndex: a server started before `relay index` answers
// graph calls once the index exists, without a restart.
func TestMCPGraphAfterIndex(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := tinyRepo(t)
	p := startMCP(t, "--repo", root, "mcp")
	cs := p.client(t)
	args := map[string]any{"operation": "callers", "target": "Twice"}
	if got, isErr := callText(t, cs, "graph", args); !isErr || got != tools.NoIndexText(advice.ToolHints(advice.MCP)) {
		t.Fatalf("before relay index: isError=%v %s", isErr, got)
	}
	if code, _, stderr := relay(t, "", "--repo", root, "index"); code != 0 {
		t.Fatalf("relay index: exit %d: %s", code, stderr)
	}
	if got, isErr := callText(t, cs, "graph", args); isErr || !strings.HasPrefix(got, "Callers of example.com/demo/greet.Twice") {
		t.Errorf("after relay index: isError=%v %s", isErr, got)
	}
	cs.Close()
	if code := p.wait(t); code != 0 {
		t.Errorf("relay mcp exited %d; stderr:\n%s", code, p.stderr.String())
	}
}

// TestMCPMalformedStdin: `relay mcp` answers a malformed line with a
// JSON-RPC error and goes on serving, and --max-concurrent is checked.
func TestMCPMalformedStdin(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := tinyRepo(t)
	p := startMCP(t, "--repo", root, "mcp", "--max-concurrent", "2")
	go func() {
		io.WriteString(p.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n"+
			"not json\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
		p.in.Close()
	}()
	out, err := io.ReadAll(p.out)
	if err != nil {
		t.Fatal(err)
	}
	// Answers come in any order: initialize runs beside the reading of the next line.
	byID := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON-RPC answer: %v: %.200s", err, line)
		}
		byID[string(r.ID)] = line
	}
	if len(byID) != 3 {
		t.Fatalf("got %d answers, want 3:\n%s", len(byID), out)
	}
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'o' in literal null (expecting 'u') (at byte 2); each line must hold exactly one JSON-RPC message"}}`; byID["null"] != want {
		t.Errorf("answer to not json:\n got %s\nwant %s", byID["null"], want)
	}
	if got := byID["2"]; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":{`) || !strings.Contains(got, `"name":"grep"`) {
		t.Errorf("tools/list answer: %.200s", got)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("relay mcp exited %d; stderr:\n%s", code, p.stderr.String())
	}
	if code, _, stderr := relay(t, "", "--repo", root, "mcp", "--max-concurrent", "0"); code != 2 || !strings.Contains(stderr, "--max-concurrent must be at least 1") {
		t.Errorf("--max-concurrent 0: exit %d: %s", code, stderr)
	}
}

// TestMCPWithTypeScriptClient builds the relay binary and drives `relay mcp`
// with the official TypeScript SDK (tools/mcptest/client.mjs).
func TestMCPWithTypeScriptClient(t *testing.T) {
	needRgFd(t)
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node or npm missing under CI (node: %v, npm: %v)", nodeErr, npmErr)
		}
		t.Skipf("node or npm missing (node: %v, npm: %v)", nodeErr, npmErr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	clientDir, err := filepath.Abs(filepath.Join("..", "..", "tools", "mcptest"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = clientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("CI") != "true" {
				t.Skipf("npm ci in %s failed (offline?): %v\n%s", clientDir, err, out)
			}
			t.Fatalf("npm ci in %s: %v\n%s", clientDir, err, out)
		}
	}
	bin := filepath.Join(t.TempDir(), "relay")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := tinyRepo(t)
	// The SDK starts the server with a minimal environment (HOME, PATH, …),
	// so the server finds its store key under HOME: index with that key.
	home := t.TempDir()
	homeKey := func(k string) string {
		if k == "RELAY_STORE_KEY" {
			return filepath.Join(home, ".config", "relay", "store.key")
		}
		return ""
	}
	var indexErr strings.Builder
	if code := run(ctx, []string{"--repo", root, "index"}, strings.NewReader(""), io.Discard, &indexErr, homeKey); code != 0 {
		t.Fatalf("relay index: exit %d: %s", code, indexErr.String())
	}

	type step struct {
		Label     string         `json:"label"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	plan := []step{
		{"grep", "grep", map[string]any{"pattern": "Greet\\(", "include": "*.go", "context": 0}},
		{"glob", "glob", map[string]any{"pattern": "**/*.go"}},
		{"read", "read", map[string]any{"file": "greet/greet.go", "start_line": 3, "num_lines": 2}},
		{"graph", "graph", map[string]any{"operation": "callers", "target": "greet.Greet"}},
		{"bad arguments", "read", map[string]any{"path": "main.go"}},
		{"wrong type", "grep", map[string]any{"pattern": 42}},
		{"escape", "read", map[string]any{"file": "/etc/passwd"}},
		{"ambiguous graph target", "graph", map[string]any{"operation": "sideways", "target": "Greet"}},
		{"unknown tool", "write_file", map[string]any{"file": "x"}},
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, root, string(planJSON))
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var got struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Instructions string `json:"instructions"`
		Tools        []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			ReadOnly    bool            `json:"readOnly"`
		} `json:"tools"`
		Calls map[string]struct {
			IsError       bool   `json:"isError"`
			Text          string `json:"text"`
			ProtocolError bool   `json:"protocolError"`
			Message       string `json:"message"`
		} `json:"calls"`
		Fatal  string `json:"fatal"`
		Stderr string `json:"stderr"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s", err, out)
	}
	if got.Fatal != "" {
		t.Fatalf("client failed: %s\nserver stderr:\n%s", got.Fatal, got.Stderr)
	}
	if got.Server.Name != "relay" || !strings.Contains(got.Instructions, "grep") {
		t.Errorf("server %q, instructions %q", got.Server.Name, got.Instructions)
	}
	reg, err := tools.Default(tools.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
		want, _ := reg.Get(tl.Name)
		if tl.Description != want.Description() || !tl.ReadOnly {
			t.Errorf("%s: description differs or not read-only", tl.Name)
		}
		var a, b any
		json.Unmarshal(tl.InputSchema, &a)
		json.Unmarshal(want.Schema(), &b)
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("%s schema (-want +got):\n%s", tl.Name, diff)
		}
	}
	if diff := cmp.Diff([]string{"glob", "graph", "grep", "read"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	checks := []struct {
		label   string
		isError bool
		prefix  string
	}{
		{"grep", false, "2 matching lines in 1 file for \"Greet\\\\(\" in \"*.go\":\ngreet/greet.go:4:func Greet(name string) string {\n--\ngreet/greet.go:10:\treturn Greet(n) + Greet(n)"},
		{"glob", false, "2 files match \"**/*.go\" (newest first):\n"},
		{"read", false, "3\t// Greet says hello.\n4\tfunc Greet(name string) string {\n(showing lines 3–4 of 11; continue with start_line=5)"},
		{"graph", false, "Callers of example.com/demo/greet.Greet (depth 1):\n1. example.com/demo/greet.Twice (greet/greet.go:9) function — calls at greet/greet.go:10\n"},
		{"bad arguments", true, `invalid arguments for read: unknown field "path"`},
		{"wrong type", true, `invalid arguments for grep: field "pattern" must be a string, not a JSON number`},
		{"escape", true, `path "/etc/passwd" is outside the repository`},
		{"ambiguous graph target", true, `unknown graph operation "sideways"`},
	}
	for _, c := range checks {
		r, ok := got.Calls[c.label]
		switch {
		case !ok:
			t.Errorf("%s: no answer recorded", c.label)
		case r.ProtocolError:
			t.Errorf("%s: protocol error %q, want a tool result", c.label, r.Message)
		case r.IsError != c.isError || !strings.HasPrefix(r.Text, c.prefix):
			t.Errorf("%s: isError=%v text:\n%s\nwant isError=%v and prefix:\n%s", c.label, r.IsError, r.Text, c.isError, c.prefix)
		}
	}
	if u := got.Calls["unknown tool"]; !u.ProtocolError || !strings.Contains(u.Message, `unknown tool "write_file"`) {
		t.Errorf("unknown tool: %+v, want a protocol error naming the tool", u)
	}
}

// TestMCPMaxPendingFlag: --max-pending reaches the transport (a batch of
// three calls with a bound of one gets one answer and two -32001
// refusals), and --max-pending 0 is refused.
func TestMCPMaxPendingFlag(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := tinyRepo(t)
	p := startMCP(t, "--repo", root, "mcp", "--max-pending", "1")
	br := bufio.NewReader(p.out)
	io.WriteString(p.in, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`+"\n")
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("batch answer: %v", err)
	}
	p.in.Close()
	var got []struct {
		ID    int `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("batch answer %.300s: %v", line, err)
	}
	codes := map[int]int{}
	for _, a := range got {
		if a.Error != nil {
			codes[a.ID] = a.Error.Code
		} else {
			codes[a.ID] = 0
		}
	}
	if diff := cmp.Diff(map[int]int{1: 0, 2: -32001, 3: -32001}, codes); diff != "" {
		t.Errorf("batch answer codes (-want +got):\n%s\n%.300s", diff, line)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("relay mcp exited %d; stderr:\n%s", code, p.stderr.String())
	}
	if code, _, stderr := relay(t, "", "--repo", root, "mcp", "--max-pending", "0"); code != 2 || !strings.Contains(stderr, "--max-pending must be at least 1") {
		t.Errorf("--max-pending 0: exit %d: %s", code, stderr)
	}
}

// stuckWriter is the stdout of a client that never reads: the first write
// announces itself on started, then every write blocks until release.
type stuckWriter struct {
	once    sync.Once
	started chan struct{}
	release chan struct{}
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started) })
	<-w.release
	return 0, io.ErrClosedPipe
}

// TestMCPStopsBehindUnreadAnswers: SIGTERM (the run's context ending)
// stops relay mcp while an answer is stuck behind a client that does not
// read; it used to wait on the write for as long as the client lived.
func TestMCPStopsBehindUnreadAnswers(t *testing.T) {
	root := tinyRepo(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()
	out := &stuckWriter{started: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(out.release); inW.Close() })
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--repo", root, "mcp"}, inR, out, stderr, func(string) string { return "" })
	}()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	}()
	select {
	case <-out.started:
	case <-time.After(time.Minute):
		t.Fatalf("relay mcp never answered; stderr:\n%s", stderr.String())
	}
	cancel()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("relay mcp exited 0 with an answer unwritten; stderr:\n%s", stderr.String())
		}
		if !strings.Contains(stderr.String(), "not reading") {
			t.Errorf("stderr does not say why the answers were left unwritten:\n%s", stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("relay mcp did not stop on its signal while an answer was stuck behind a client that does not read")
	}
}
