package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestServeConfigIndexBudgets: relay.yaml's index block sets the
// per-file budgets of the bot's indexing; absent, they stay zero (the
// indexer's defaults). relay.yaml had no way to set them.
func TestServeConfigIndexBudgets(t *testing.T) {
	base := "state_dir: /tmp/relay\ngithub:\n  webhook_secret_env: S\n  token_env: T\n  bot_login: bot\nrepositories:\n  - github: acme/a\n    remote: /tmp/a\n"
	for _, tc := range []struct {
		name, yaml string
		want       IndexBudgets
	}{
		{"absent", base, IndexBudgets{}},
		{"set", base + "index:\n  max_file_size: 1048576\n  max_depth: -1\n  parse_timeout: 5s\n", IndexBudgets{MaxFileSize: 1 << 20, MaxDepth: -1, ParseTimeout: 5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadConfig("relay.yaml", strings.NewReader(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Index); diff != "" {
				t.Errorf("index budgets (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := LoadConfig("relay.yaml", strings.NewReader(base+"index:\n  max_size: 1\n")); err == nil || !strings.Contains(err.Error(), "max_size") {
		t.Errorf("an unknown key in the index block: %v, want an error naming it", err)
	}
}
