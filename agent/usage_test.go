package agent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		wantModel string
		want      Price
		wantErr   string
	}{
		{in: "gpt-4o-mini=0.15/0.60", wantModel: "gpt-4o-mini", want: Price{In: 0.15, Out: 0.6}},
		{in: " qwen2.5:7b = 0 / 0 ", wantModel: "qwen2.5:7b", want: Price{}},
		{in: "gpt-4o=2.5", wantErr: "want model=in/out"},
		{in: "=1/2", wantErr: "want model=in/out"},
		{in: "m=abc/2", wantErr: `input price "abc"`},
		{in: "m=1/2x", wantErr: `output price "2x"`},
		{in: "m=-1/2", wantErr: "non-negative"},
	}
	for _, tc := range tests {
		model, p, err := ParsePrice(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParsePrice(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || model != tc.wantModel || p != tc.want {
			t.Errorf("ParsePrice(%q) = %q, %+v, %v; want %q, %+v", tc.in, model, p, err, tc.wantModel, tc.want)
		}
	}
}

func TestMeterBudget(t *testing.T) {
	t.Parallel()
	m := newMeter(Budget{MaxTokens: 100}, map[string]Price{"a": {In: 1, Out: 1}})
	m.add(StageRetriever, "a", 40, 10, time.Second)
	if err := m.admit(); err != nil {
		t.Fatalf("admit under budget: %v", err)
	}
	m.add(StagePlanner, "b", 40, 10, time.Second)
	if err := m.admit(); !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "token budget 100 reached (100 tokens used)") {
		t.Fatalf("admit over budget = %v", err)
	}
	u := m.usage()
	want := Usage{
		Stages: []StageUsage{
			{Stage: StagePlanner, Calls: 1, PromptTokens: 40, CompletionTokens: 10, Time: time.Second},
			{Stage: StageRetriever, Calls: 1, PromptTokens: 40, CompletionTokens: 10, Cost: 50e-6, Time: time.Second},
		},
		PromptTokens: 80, CompletionTokens: 20, Cost: 50e-6, Priced: false,
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	var b strings.Builder
	if err := u.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "retriever") || !strings.Contains(b.String(), "total") || strings.Contains(b.String(), "0.0000") {
		t.Errorf("summary (unpriced, so no costs):\n%s", b.String())
	}
}
