package advice

import (
	"errors"
	"testing"
)

func TestMCPGraphUnavailable(t *testing.T) {
	t.Parallel()
	damaged := damagedStore(t)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"error says what to run", errors.New("the index is from another version; run `relay index`"), "Then retry."},
		{"table has advice", damaged, Sentence(For(damaged, MCP))},
		{"no advice", errors.New("open graph.db: permission denied"),
			"Rebuild it with `relay index` in the repository root (or make the index readable, or wait for the process holding its lock), then retry."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				t.Fatal("empty expectation: the table entry has no MCP advice")
			}
			if got := MCPGraphUnavailable(tc.err); got != tc.want {
				t.Errorf("MCPGraphUnavailable(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}
