package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/internal/testutil"
)

// needTools skips when rg or fd is missing, and fails under CI=true.
func needTools(t testing.TB) {
	t.Helper()
	testutil.Need(t, InstallHint, "rg", "fd|fdfind")
}

// fixtureFiles is a small repository: code, tests, SQL, config, docs, an
// ignored directory, a log file and a binary file.
var fixtureFiles = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.22\n",
	"main.go": `package main

import (
	"fmt"

	"example.com/demo/greet"
)

func main() {
	fmt.Println(greet.Greet("world"))
}
`,
	"greet/greet.go": `package greet

// Greet says hello.
func Greet(name string) string {
	if name == "" {
		name = "nobody"
	}
	return "hello " + name
}
`,
	"greet/greet_test.go": `package greet

import "testing"

func TestGreet(t *testing.T) {
	if Greet("x") != "hello x" {
		t.Fatal("bad greeting")
	}
}
`,
	"net/http/server.go": `package http

type Server struct{ Addr string }

func (s *Server) Serve() error { return nil }

func (s *Server) ListenAndServe() error {
	return s.Serve()
}
`,
	"db/schema.sql":        "CREATE TABLE users (\n  id INTEGER PRIMARY KEY,\n  greeting TEXT\n);\n",
	"config/app.yaml":      "server:\n  greeting: hello\n  timeout: 30s\n",
	"docs/guide.md":        "# Guide\n\nCall Greet to say hello.\n",
	".github/ci.yml":       "name: ci\n# Greet in a hidden dir\n",
	".gitignore":           "ignored/\n*.log\n",
	"ignored/skip.go":      "package ignored\n\nfunc Greet() {}\n",
	"debug.log":            "Greet called\n",
	"assets/logo.bin":      "PNG\x00\x01\x02Greet\x00",
	"weird name/space.txt": "a file with a space in its directory\n",
}

// fixture writes fixtureFiles into a fresh directory and gives every file a
// distinct modification time: the order of fixtureOrder, oldest first.
func fixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range fixtureOrder {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fixtureFiles[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var fixtureOrder = []string{
	"go.mod", "main.go", "greet/greet.go", "greet/greet_test.go", "net/http/server.go",
	"db/schema.sql", "config/app.yaml", "docs/guide.md", ".github/ci.yml", ".gitignore",
	"ignored/skip.go", "debug.log", "assets/logo.bin", "weird name/space.txt",
}

func TestFixtureOrderCoversFiles(t *testing.T) {
	if len(fixtureOrder) != len(fixtureFiles) {
		t.Fatalf("fixtureOrder has %d names, fixtureFiles %d", len(fixtureOrder), len(fixtureFiles))
	}
	for _, n := range fixtureOrder {
		if _, ok := fixtureFiles[n]; !ok {
			t.Fatalf("fixtureOrder names %q, absent from fixtureFiles", n)
		}
	}
}

// call runs tool t with JSON args and fails on an infrastructure error.
func call(t *testing.T, tool Tool, args string) Result {
	t.Helper()
	res, err := tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: unexpected error: %v", tool.Name(), args, err)
	}
	return res
}

// checkCall calls tool with args and checks the content, the error flag
// and, when meta is not nil, the metadata.
func checkCall[M any](t *testing.T, tool Tool, args, want string, isError bool, meta *M) {
	t.Helper()
	res := call(t, tool, args)
	if diff := cmp.Diff(want, res.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if res.IsError != isError {
		t.Errorf("IsError = %v, want %v", res.IsError, isError)
	}
	if meta != nil {
		if diff := cmp.Diff(meta, res.Meta); diff != "" {
			t.Errorf("meta (-want +got):\n%s", diff)
		}
	}
}

// checkGolden compares got with testdata/<name>, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got)
}

func TestDefaultRegistry(t *testing.T) {
	needTools(t)
	reg, err := Default(Options{Root: fixture(t)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"glob", "graph", "grep", "read"}, reg.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, tool := range reg.Tools() {
		if !IsReadOnly(tool) {
			t.Errorf("%s is not read-only", tool.Name())
		}
		var schema map[string]any
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Errorf("%s schema is not JSON: %v", tool.Name(), err)
			continue
		}
		if schema["type"] != "object" {
			t.Errorf("%s schema type = %v, want object", tool.Name(), schema["type"])
		}
		d := tool.Description()
		if !strings.Contains(d, "Example:\n{") {
			t.Errorf("%s description has no worked example", tool.Name())
		}
		// The worked example must decode with the tool's own rules.
		ex := d[strings.LastIndex(d, "Example:\n")+len("Example:\n"):]
		var out map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(ex)), &out); err != nil {
			t.Errorf("%s example is not JSON: %v", tool.Name(), err)
		}
		for k := range out {
			if props := schema["properties"].(map[string]any); props[k] == nil {
				t.Errorf("%s example uses %q, not in the schema", tool.Name(), k)
			}
		}
	}
	if got := len(reg.ReadOnly().Names()); got != 4 {
		t.Errorf("ReadOnly() kept %d tools, want 4", got)
	}
}

func TestMissingPrograms(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"rg", func() error { _, err := NewGrep(Options{Root: root, RgPath: "relay-no-such-rg"}); return err }, "apt-get install -y ripgrep fd-find"},
		{"fd", func() error { _, err := NewGlob(Options{Root: root, FdPath: "relay-no-such-fd"}); return err }, "brew install ripgrep fd"},
		{"root", func() error { _, err := NewRead(Options{Root: filepath.Join(root, "nope")}); return err }, "nope"},
		{"empty root", func() error { _, err := NewRead(Options{}); return err }, "Root is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.make()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	needTools(t)
	reg, err := Default(Options{Root: fixture(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args, want string
	}{
		{"grep", `{"pattern": 5}`, `field "pattern" must be a string`},
		{"grep", `{"pattern": "x", "path": "a"}`, `unknown field "path"`},
		{"grep", `[1,2]`, "invalid arguments for grep"},
		{"glob", `{"pattern": "*.go"} {}`, "extra data"},
		{"read", `{"path": "main.go"}`, `unknown field "path"`},
		{"read", `{"file": "main.go", "start_line": "ten"}`, `field "start_line" must be an integer`},
		{"graph", `{"operation": "callers"`, "invalid arguments for graph"},
		{"grep", `{}`, `non-empty "pattern"`},
		{"glob", ``, `non-empty "pattern"`},
		{"read", `null`, `read needs "file"`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			tool, _ := reg.Get(tc.tool)
			res := call(t, tool, tc.args)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got IsError=%v %q, want an error containing %q", res.IsError, res.Content, tc.want)
			}
		})
	}
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
