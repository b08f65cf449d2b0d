package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/relayhq/relay/internal/safefs"
)

// TestSchemasGolden pins the schemas generated from the parameter structs
// (go test ./tools -update rewrites testdata/schemas.golden), and checks
// that each tool's worked example validates against its schema while an
// unknown field does not.
func TestSchemasGolden(t *testing.T) {
	needTools(t)
	reg, err := Default(Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var golden strings.Builder
	for _, tool := range reg.Tools() {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, tool.Schema(), "", "  "); err != nil {
			t.Fatalf("%s schema: %v", tool.Name(), err)
		}
		fmt.Fprintf(&golden, "## %s\n%s\n\n", tool.Name(), pretty.String())

		var s jsonschema.Schema
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatalf("%s schema: %v", tool.Name(), err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s schema does not resolve: %v", tool.Name(), err)
		}
		d := tool.Description()
		var example map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(d[strings.LastIndex(d, "Example:\n")+len("Example:\n"):])), &example); err != nil {
			t.Fatalf("%s example: %v", tool.Name(), err)
		}
		if err := rs.Validate(example); err != nil {
			t.Errorf("%s example %v does not validate: %v", tool.Name(), example, err)
		}
		example["bogus"] = 1
		if err := rs.Validate(example); err == nil {
			t.Errorf("%s schema accepts an unknown field", tool.Name())
		}
	}
	checkGolden(t, "schemas.golden", golden.String())
}

// FuzzDecodeArgs feeds arbitrary bytes to each tool's argument decoding
// and to read itself (over a small repository): nothing panics, a refusal
// quotes at most a capped part of the input, an accepted object has only
// known keys and survives a round trip, and no answer shows the
// repository's absolute path.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{"pattern": "func main", "include": "*.go"}`,
		`{"pattern": "x", "limit": 1000, "context": 20}`, `{"pattern": 5}`, `{"PATTERN": "x"}`,
		`{"file": "a", "file": "b"}`, `{"file": "main.go", "start_line": 2, "num_lines": 1}`,
		`{"file": "\"a\\nb\""}`, `{"file": "../../etc/passwd"}`, `{"file": "/etc/passwd"}`,
		`{"file": "main.go\u0000"}`, `{"operation": "callers", "target": "Server.Serve", "depth": 9}`,
		`{"pattern": "*.go"} {}`, `{"file": 1e400}`, `{"a":` + strings.Repeat(`[`, 100), "{\"file\": \"\xff\"}",
		`{"` + strings.Repeat("k", 5000) + `": 1}`,
	} {
		f.Add([]byte(seed))
	}
	root := f.TempDir()
	writeFile(f, root, "main.go", "package main\n\nfunc main() {}\n")
	writeFile(f, root, "dir/x.txt", "x\n")
	read, err := NewRead(Options{Root: root})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		checkDecode[GrepParams](t, args)
		checkDecode[GlobParams](t, args)
		checkDecode[ReadParams](t, args)
		checkDecode[GraphParams](t, args)
		res, err := read.Call(t.Context(), args)
		if err != nil {
			t.Fatalf("read %q: %v", args, err)
		}
		if strings.Contains(res.Content, root) {
			t.Fatalf("read %q reveals the root's path: %q", args, res.Content)
		}
	})
}

func checkDecode[P any](t *testing.T, args []byte) {
	t.Helper()
	var p P
	schema := SchemaFor[P]()
	msg := decodeArgs("x", schema, args, &p)
	if msg != "" {
		if limit := len("invalid arguments for x: ") + 4*safefs.MaxEcho + 200 + len(compactJSON(schema)); len(msg) > limit {
			t.Fatalf("%T: a %d-byte refusal of %d bytes of input (limit %d): %.300q", p, len(msg), len(args), limit, msg)
		}
		return
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(args, &keys); err == nil {
		known := argFields(&p)
		for k := range keys {
			if !known[k] {
				t.Fatalf("%T: accepted unknown key %q in %q", p, k, args)
			}
		}
	}
	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q P
	if msg := decodeArgs("x", schema, again, &q); msg != "" {
		t.Fatalf("%T: own encoding %s refused: %s", p, again, msg)
	}
}
