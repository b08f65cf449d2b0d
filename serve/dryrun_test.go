package serve

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/relayhq/relay/tracker"
)

// counter reads one series of a counter vector.
func counter(t testing.TB, m interface{ Write(*dto.Metric) error }) int {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	return int(d.GetCounter().GetValue())
}

// TestServeDryRun: with dry_run the bot reads and scopes the issue but
// posts nothing: the placeholder and the report are logged (the report
// after the egress filter, as it would have been posted) and counted by
// kind in relay_dry_run_posts_total.
func TestServeDryRun(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.DryRun = true
	gh := newFakeTracker(tracker.GitHub)
	scoper := &fakeScoper{running: map[string]int{}}
	logs := &syncWriter{w: &bytes.Buffer{}}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: scoper, log: logs, verbose: true})
	resp, err := http.DefaultClient.Do(signedRequest(t, svc.url+"/webhooks/github", testPayload{Delivery: "d1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "3"}}))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	posts := svc.Metrics().DryRunPosts
	waitFor(t, time.Minute, "the dry run's report", func() bool {
		return counter(t, posts.WithLabelValues(tracker.GitHub, PostReport)) == 1 && idleQueue(t, svc.Service)
	})
	if n := counter(t, posts.WithLabelValues(tracker.GitHub, PostPlaceholder)); n != 1 {
		t.Errorf("%d placeholders counted, want 1", n)
	}
	if len(gh.edits) != 0 {
		t.Errorf("a dry run posted: %v", gh.edits)
	}
	if scoper.calls != 1 {
		t.Errorf("%d scopes, want the issue scoped once", scoper.calls)
	}
	log := logs.String()
	for _, want := range []string{"dry run: would post", "key=github:acme/a#3", "kind=report", "Report for Issue 3"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}
