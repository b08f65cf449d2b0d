package serve

import (
	"strings"
	"testing"
)

// TestServeAgentConfigErrors: the bot's model problems name relay.yaml's
// keys, never a flag of the CLI.
func TestServeAgentConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		m       ModelConfig
		wantErr string
	}{
		{"endpoint without a model", ModelConfig{BaseURL: "http://localhost:11434/v1"},
			"no model for endpoint http://localhost:11434/v1: set model.model in relay.yaml"},
		{"bad price", ModelConfig{BaseURL: "http://m/v1", Model: "m", Prices: map[string]string{"m": "a/1"}},
			`model.prices: price "m=a/1": input price "a" is not a non-negative number`},
		{"cost budget without prices", ModelConfig{BaseURL: "http://m/v1", Model: "m", MaxCost: 1},
			"model.max_cost 1: needs prices to count the cost by; set model.prices in relay.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := AgentConfig(tc.m, func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("the bot's error names a flag: %v", err)
			}
		})
	}
	// Without an endpoint nothing else is checked: the bot posts the
	// offline report.
	if _, err := AgentConfig(ModelConfig{Prices: map[string]string{"m": "x"}}, func(string) string { return "" }); err != nil {
		t.Errorf("no endpoint: %v", err)
	}
}
