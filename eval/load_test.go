package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadLongLines: an instance whose problem statement (Instance) or
// patch (RealIssue) is 20 MiB on one line, over the 16 MiB a
// bufio.Scanner-based loader allowed ("token too long"), loads whole, and
// the line after it too.
func TestLoadLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("the parser panics on long input ", 20<<20/32)
	t.Run("instances", func(t *testing.T) {
		t.Parallel()
		in := Instance{ID: "big", Problem: long, GoldFiles: []string{"p/parse.go"}}
		line, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadInstances(strings.NewReader(string(line) + "\n" + `{"instance_id": "small", "problem_statement": "x", "gold_files": ["a.go"]}` + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%d instances, want 2", len(got))
		}
		if diff := cmp.Diff([]string{"big", "small"}, []string{got[0].ID, got[1].ID}); diff != "" || len(got[0].Problem) != len(in.Problem) {
			t.Errorf("instances (-want +got):\n%s (problem %d bytes, want %d)", diff, len(got[0].Problem), len(in.Problem))
		}
	})
	t.Run("real issues", func(t *testing.T) {
		t.Parallel()
		ri := RealIssue{ID: "big", Repo: "o/a", Bundle: "o__a.bundle", Ref: "big", Problem: "x", GoldFiles: []string{"a.go"}, Patch: long}
		line, err := json.Marshal(ri)
		if err != nil {
			t.Fatal(err)
		}
		small := `{"instance_id":"small","repo":"o/a","bundle":"o__a.bundle","ref":"small","problem_statement":"x","gold_files":["a.go"],"patch":"p"}`
		got, err := LoadRealIssues(strings.NewReader(string(line) + "\n" + small))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%d instances, want 2", len(got))
		}
		if diff := cmp.Diff([]string{"big", "small"}, []string{got[0].ID, got[1].ID}); diff != "" || len(got[0].Patch) != len(ri.Patch) {
			t.Errorf("instances (-want +got):\n%s (patch %d bytes, want %d)", diff, len(got[0].Patch), len(ri.Patch))
		}
	})
}

// TestLoadErrors checks that both loaders' errors name the line, the
// instance when known, what is wrong and what to do.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	inst := `{"instance_id": "a", "problem_statement": "p", "gold_files": ["x.go"]}`
	real := `{"instance_id":"a","repo":"o/a","bundle":"o__a.bundle","ref":"a","problem_statement":"x","gold_files":["a.go"],"patch":"p"}`
	tests := []struct {
		name, in, want string
		real           bool
	}{
		{"bad JSON", "\n\n{", `line 3: unexpected end of JSON input (want one JSON object per line: {"instance_id"`, false},
		{"bad JSON, real", "{", `line 1: unexpected end of JSON input (want one JSON object per line: {"instance_id", "repo"`, true},
		{"no id", `{"problem_statement": "p"}`, "line 1: instance_id is empty (give every line a unique instance_id)", false},
		{"no id, real", `{"patch": "p"}`, "line 1: instance_id is empty (give every line a unique instance_id)", true},
		{"path id", `{"instance_id": "a/b"}`, `line 1: instance_id "a/b" must be a plain directory name (no slashes, not . or ..)`, false},
		{"dot id, real", `{"instance_id": ".."}`, `line 1: instance_id ".." must be a plain directory name`, true},
		{"no problem", `{"instance_id": "a", "gold_files": ["x"]}`, "line 1 (a): problem_statement is empty (give the issue's text)", false},
		{"no gold", `{"instance_id": "a", "problem_statement": "p"}`, "line 1 (a): gold_files is empty (list the files the fix changes)", false},
		{"no patch", `{"instance_id":"a","bundle":"b","ref":"r","problem_statement":"x"}`, "line 1 (a): patch is empty (give the merged fix as a unified diff)", true},
		{"repeat", inst + "\n" + inst, `line 2: instance_id "a" repeats line 1 (instance ids must be unique)`, false},
		{"repeat, real", real + "\n\n" + real, `line 3: instance_id "a" repeats line 1`, true},
		{"absolute gold", `{"instance_id": "a", "problem_statement": "p", "gold_files": ["x.go", "/etc/passwd"]}`, `line 1 (a): gold_files entry "/etc/passwd" is absolute: give paths relative to the repository root`, false},
		{"absolute gold, real", `{"instance_id":"a","bundle":"b","ref":"r","problem_statement":"x","patch":"p","gold_files":["/etc/passwd"]}`, `line 1 (a): gold_files entry "/etc/passwd" is absolute`, true},
		{"dot-dot gold", "\n" + `{"instance_id": "a", "problem_statement": "p", "gold_files": ["../../etc/passwd"]}`, `line 2 (a): gold_files entry "../../etc/passwd" climbs out of the repository with ..`, false},
		{"inner dot-dot gold, real", `{"instance_id":"a","bundle":"b","ref":"r","problem_statement":"x","patch":"p","gold_files":["src/../../x.go"]}`, `line 1 (a): gold_files entry "src/../../x.go" climbs out`, true},
		{"windows gold", `{"instance_id": "a", "problem_statement": "p", "gold_files": ["C:\\x.go"]}`, `gold_files entry "C:\\x.go" is absolute`, false},
		{"backslash gold", `{"instance_id": "a", "problem_statement": "p", "gold_files": ["a\\x.go"]}`, `gold_files entry "a\\x.go" has backslashes`, false},
		{"unclean gold", `{"instance_id": "a", "problem_statement": "p", "gold_files": ["./a//x.go"]}`, `gold_files entry "./a//x.go" is not in clean form (write "a/x.go")`, false},
		{"empty gold entry", `{"instance_id": "a", "problem_statement": "p", "gold_files": [""]}`, `gold_files entry "" has no file path`, false},
		{"absolute gold function", `{"instance_id": "a", "problem_statement": "p", "gold_files": ["x.go"], "gold_functions": ["/etc/x.go:F"]}`, `line 1 (a): gold_functions entry "/etc/x.go:F" is absolute`, false},
		{"empty", "\n \n", "no instances found: expected one JSON object per line", false},
		{"empty, real", "", "no instances found: expected one JSON object per line", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.real {
				_, err = LoadRealIssues(strings.NewReader(tc.in))
			} else {
				_, err = LoadInstances(strings.NewReader(tc.in))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
