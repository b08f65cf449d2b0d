package agent

import (
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	t.Parallel()
	long := "find where the SMS is sent again\n\tafter a   timeout "
	for len([]rune(long)) <= 100 {
		long += "and more words "
	}
	tests := []struct {
		p    Progress
		want string
	}{
		{Progress{Kind: "stage", Stage: StagePlanner, Elapsed: 1500 * time.Millisecond}, "[   1.5s] == planner"},
		{Progress{Kind: "retriever_start", Agent: "retriever-1", Query: "find  the\nsender"}, "[   0.0s] retriever-1 ▶ find the sender"},
		{Progress{Kind: "tool_call", Agent: "retriever-1", Tool: "grep", Args: `{"pattern":"Send"}`}, `[   0.0s] retriever-1   grep {"pattern":"Send"}`},
		{Progress{Kind: "retriever_done", Agent: "retriever-1"}, "[   0.0s] retriever-1 ✓ done"},
		{Progress{Kind: "retriever_done", Agent: "retriever-2", Text: "incomplete: budget"}, "[   0.0s] retriever-2 ✗ incomplete: budget"},
		{Progress{Kind: "usage"}, ""},
	}
	for _, tt := range tests {
		if got := tt.p.Line(); got != tt.want {
			t.Errorf("%+v: Line() = %q, want %q", tt.p, got, tt.want)
		}
	}
	got := Progress{Kind: "retriever_start", Agent: "r", Query: long}.Line()
	if r := []rune(got); r[len(r)-1] != '…' || len(r) != len([]rune("[   0.0s] r ▶ "))+101 {
		t.Errorf("a long task is not cut to 100 characters and an ellipsis: %q", got)
	}
}
