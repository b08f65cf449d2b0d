package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadInstancesLongLines: an instance whose problem statement is 20 MiB
// on one line (over the 16 MiB the loader's scanner allowed) loads whole.
func TestLoadInstancesLongLines(t *testing.T) {
	t.Parallel()
	in := Instance{ID: "big", Problem: strings.Repeat("the parser panics on long input ", 20<<20/32), GoldFiles: []string{"p/parse.go"}}
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
}
