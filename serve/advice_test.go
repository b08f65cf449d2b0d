package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tracker"
)

// TestServeFailureAdvice: a job that finally fails with an error relay has
// advice for logs the operator's advice (relay.yaml, the environment) with
// it, and the failure note on the issue ends with the author's, never the
// command line's.
func TestServeFailureAdvice(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.MaxAttempts = 1
	gh := newFakeTracker(tracker.GitHub)
	jobErr := fmt.Errorf("index the worktree: %w: no source file of a language relay indexes under /srv/x", index.ErrNoSource)
	scoper := &fakeScoper{running: map[string]int{}, err: func(ScopeInput) error { return jobErr }}
	logs := &syncLog{}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: scoper, log: logs})
	key := "github:acme/a#7"
	sendBurst(t, svc.url, []testPayload{{Delivery: "a-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "7"}}})
	waitFor(t, time.Minute, "the failure note", func() bool { return strings.Contains(gh.current(key), "could not scope") })
	got := gh.current(key)
	if want := advice.For(jobErr, advice.Author); want == "" || !strings.Contains(got, want) {
		t.Errorf("the failure note lacks the author's advice %q:\n%s", want, got)
	}
	if cli := advice.For(jobErr, advice.CLI); strings.Contains(got, cli) || strings.Contains(got, "--repo") {
		t.Errorf("the failure note gives the command line's advice:\n%s", got)
	}
	waitFor(t, time.Minute, "the failure logged", func() bool { return strings.Contains(logs.String(), "job failed") })
	if want := advice.For(jobErr, advice.Operator); !strings.Contains(logs.String(), want) {
		t.Errorf("the log lacks the operator's advice %q:\n%s", want, logs.String())
	}
}
