package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswerGraphTargets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := testGraph()

	// One target: AnswerGraph's answer.
	one, err := AnswerGraphTargets(ctx, r, "callers", []string{"net/http.Server.Serve"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want, err := AnswerGraph(ctx, r, "callers", "net/http.Server.Serve", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Text(0), one.Text(0)); diff != "" {
		t.Errorf("one target (-want +got):\n%s", diff)
	}

	// Several: one blast radius over all of them.
	many, err := AnswerGraphTargets(ctx, r, "blast-radius", []string{"net/http.Server.Serve", "net/http.NewServer"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if many.Operation != OpBlastRadius || many.Blast == nil || many.Target.QName != "net/http.Server.Serve, net/http.NewServer" {
		t.Errorf("blast radius of two = %+v", many)
	}

	tests := []struct {
		op      string
		targets []string
		want    string
	}{
		{"callers", []string{"net/http.Server.Serve", "net/http.NewServer"}, "callers takes exactly one target (got 2)"},
		{"blast_radius", []string{"net/http.Server.Serve", "Nowhere"}, `"Nowhere"`},
		{"callers", nil, "graph needs a target symbol"},
	}
	for _, tc := range tests {
		_, err := AnswerGraphTargets(ctx, r, tc.op, tc.targets, 1)
		var ie *GraphInputError
		if !errorsAs(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AnswerGraphTargets(%s, %q) error = %v, want a GraphInputError containing %q", tc.op, tc.targets, err, tc.want)
		}
	}
}
