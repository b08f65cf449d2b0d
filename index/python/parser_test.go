//go:build cgo

package python

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// TestParseLimitedStops: a cancelled context and a deadline stop a parse
// in progress, and the parser parses the next file.
func TestParseLimitedStops(t *testing.T) {
	big := []byte(strings.Repeat("def f(a, b):\n    return a.b(c, d[e])\n", 200_000))
	p := newParser()
	defer p.Close()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		want    error
	}{
		{"cancelled", cancelled, 0, context.Canceled},
		{"deadline", t.Context(), time.Nanosecond, sitter.ErrParseDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := sitter.ParseLimited(tc.ctx, p, big, tc.timeout)
			if tree != nil {
				tree.Close()
				t.Fatal("the parse ran to its end")
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			tree, err = sitter.ParseLimited(t.Context(), p, []byte("def ok():\n    return 1\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			if got := tree.RootNode().ToSexp(); strings.Contains(got, "ERROR") || !strings.Contains(got, "function_definition") {
				t.Errorf("the next parse: %s", got)
			}
		})
	}
}
