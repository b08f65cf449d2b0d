package indextest

import (
	"context"
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
)

// RunWithin calls run (which runs the indexer under ctx) and fails the
// test when it takes longer than limit, so that a hang is reported instead
// of waiting for the test binary's timeout. It returns run's results and
// how long it took.
func RunWithin(t *testing.T, limit time.Duration, run func(ctx context.Context) (frontend.Summary, error)) (frontend.Summary, time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	start := time.Now()
	sum, err := run(ctx)
	if ctx.Err() != nil {
		t.Fatalf("Run did not finish within %s", limit)
	}
	return sum, time.Since(start), err
}

// Notes renders Summary.Notes as "pos: msg" lines.
func Notes(s frontend.Summary) []string {
	var out []string
	for _, n := range s.Notes {
		out = append(out, n.Pos+": "+n.Msg)
	}
	return out
}
