package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tools"
)

// needRgFd skips when rg or fd is missing, and fails under CI=true.
func needRgFd(t testing.TB) {
	t.Helper()
	testutil.Need(t, tools.InstallHint, "rg", "fd|fdfind")
}

// tinyRepo writes a two-package Go module: main calls greet.Twice, which
// calls greet.Greet.
func tinyRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"go.mod":         "module example.com/demo\n\ngo 1.22\n",
		"main.go":        "package main\n\nimport \"example.com/demo/greet\"\n\nfunc main() {\n\tprintln(greet.Twice(\"x\"))\n}\n",
		"greet/greet.go": "package greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"hello \" + name\n}\n\n// Twice greets twice.\nfunc Twice(n string) string {\n\treturn Greet(n) + Greet(n)\n}\n",
	})
}

// relay runs one in-process relay invocation.
func relay(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(stdin), &out, &errb, func(string) string { return "" })
	return code, out.String(), errb.String()
}

func TestToolCommand(t *testing.T) {
	needRgFd(t)
	root := tinyRepo(t)
	tests := []struct {
		name      string
		stdin     string
		args      []string
		code      int
		stdout    string
		stderrHas string
	}{
		{
			name:   "glob",
			args:   []string{"--repo", root, "tool", "glob", `{"pattern": "greet/*.go"}`},
			stdout: "1 file matches \"greet/*.go\" (newest first):\ngreet/greet.go\n",
		},
		{
			name:   "grep",
			args:   []string{"--repo", root, "tool", "grep", `{"pattern": "Greet\\(n\\)", "context": 0}`},
			stdout: "1 matching line in 1 file for \"Greet\\\\(n\\\\)\":\ngreet/greet.go:10:\treturn Greet(n) + Greet(n)\n",
		},
		{
			name:   "read with arguments from stdin",
			stdin:  `{"file": "main.go", "start_line": 5, "num_lines": 1}`,
			args:   []string{"--repo", root, "tool", "read", "-"},
			stdout: "5\tfunc main() {\n(showing lines 5–5 of 7; continue with start_line=6)\n",
		},
		{
			name:      "tool error still prints the answer",
			args:      []string{"--repo", root, "tool", "read", `{"file": "../outside.go"}`},
			code:      1,
			stdout:    "path \"../outside.go\" is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)\n",
			stderrHas: "the read tool answered with an error",
		},
		{
			name:      "graph without an index",
			args:      []string{"--repo", root, "tool", "graph", `{"operation": "callers", "target": "Greet"}`},
			code:      1,
			stdout:    tools.NoIndexText(advice.ToolHints(advice.CLI)) + "\n",
			stderrHas: "the graph tool answered with an error",
		},
		{
			name:      "unknown tool",
			args:      []string{"--repo", root, "tool", "write", `{}`},
			code:      2,
			stderrHas: `unknown tool "write"; valid tools: glob, graph, grep, read`,
		},
		{
			name:      "bad JSON",
			args:      []string{"--repo", root, "tool", "grep", `{pattern: x}`},
			code:      2,
			stderrHas: "arguments for grep are not valid JSON",
		},
		{
			name:      "no tool",
			args:      []string{"--repo", root, "tool"},
			code:      2,
			stderrHas: "tool takes a tool name and one JSON argument object",
		},
		{
			name:      "arango store",
			args:      []string{"--repo", root, "--store", "arangodb://127.0.0.1:1/relay", "tool", "graph", `{"operation": "callers", "target": "Greet"}`},
			code:      1,
			stderrHas: "cannot reach ArangoDB at http://127.0.0.1:1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := relay(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit status = %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.Contains(stderr, tc.stderrHas) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.stderrHas)
			}
		})
	}
}

// TestToolGraphEndToEnd indexes a tiny repository and asks the graph tool.
func TestToolGraphEndToEnd(t *testing.T) {
	root := tinyRepo(t)
	if code, _, stderr := relay(t, "", "--repo", root, "index"); code != 0 {
		t.Fatalf("relay index: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args   string
		code   int
		stdout string
	}{
		{`{"operation": "callers", "target": "greet.Greet", "depth": 2}`, 0, `Callers of example.com/demo/greet.Greet (depth 2):
Depth 1:
1. example.com/demo/greet.Twice (greet/greet.go:9) function — calls at greet/greet.go:10
Depth 2:
2. example.com/demo.main (main.go:5) function — calls example.com/demo/greet.Twice at main.go:6
Use read to fetch full code for any of these files.
`},
		{`{"operation": "callees", "target": "main"}`, 0, `Callees of example.com/demo.main (depth 1):
1. example.com/demo/greet.Twice (greet/greet.go:9) function — called at main.go:6
Use read to fetch full code for any of these files.
`},
		{`{"operation": "blast-radius", "target": "Greet"}`, 0, `Blast radius of example.com/demo/greet.Greet (callers up to depth 4): risk 30/100; 1 direct caller, 1 transitive caller, 0 tests, 2 affected files.
Direct callers (1):
1. example.com/demo/greet.Twice (greet/greet.go:9) function — calls at greet/greet.go:10
Transitive callers (1):
2. example.com/demo.main (main.go:5) function — calls example.com/demo/greet.Twice at main.go:6
No test reaches it.
Affected files: greet/greet.go, main.go
Use read to fetch full code for any of these files.
`},
		{`{"operation": "callers", "target": "Greeet"}`, 1, "No symbol \"Greeet\" in the code graph. Use grep to find where it is defined, then retry with its qualified name (import path + name, e.g. \"net/http.Server.Serve\"). If it was added recently the index is stale. Run `relay index` to update it.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			code, stdout, stderr := relay(t, "", "--repo", root, "tool", "graph", tc.args)
			if code != tc.code {
				t.Errorf("exit status = %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTimeoutFlags: a per-call --timeout of zero or less used to become
// the 30 s default without a word, and a model request or retriever
// timeout of zero or less was taken as given; each is now a usage error.
func TestTimeoutFlags(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tool zero", []string{"tool", "--timeout", "0s", "glob", `{"pattern": "*"}`}, "--timeout 0s: want a positive duration, e.g. 30s or 2m"},
		{"tool negative", []string{"tool", "--timeout", "-5s", "glob", `{"pattern": "*"}`}, "--timeout -5s: want a positive duration"},
		{"mcp zero", []string{"mcp", "--timeout", "0s"}, "--timeout 0s: want a positive duration"},
		{"scope request timeout", []string{"scope", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--request-timeout", "0s", "x"}, "--request-timeout 0s: must be positive"},
		{"ask negative run timeout", []string{"ask", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--timeout", "-1m", "x"}, "--timeout -1m0s: must be positive, or 0 for none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := relay(t, "", append([]string{"--repo", root}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestOutputWriteFails: `relay search … > /dev/full` and `relay graph
// callers … > /dev/full` exited 0 with their answer lost. A command whose
// output cannot be written fails.
func TestOutputWriteFails(t *testing.T) {
	needRgFd(t)
	root := retrievalRepo(t)
	for _, args := range [][]string{
		{"search", "discount"},
		{"graph", "callers", "applyDiscount"},
		{"graph", "callers", "applyDiscount", "--json"},
		{"tool", "glob", `{"pattern": "**/*.go"}`},
		{"review", "--diff", "-"},
		{"scope", "orders of one hundred get no discount"},
	} {
		var errb bytes.Buffer
		code := run(t.Context(), append([]string{"--repo", root}, args...), strings.NewReader(cartDiff), fullWriter{}, &errb, func(string) string { return "" })
		if code != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("relay %v to a full disk: exit %d, stderr %q; want 1 and the write error", args, code, errb.String())
		}
	}
}
