package serve

import (
	"context"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/relayhq/relay/tracker"
)

// dryRun is a tracker that posts nothing (relay.yaml's dry_run): every
// comment the bot would post or edit — placeholder, report, failure or
// budget note — is logged with its issue and size and counted in
// relay_dry_run_posts_total, and the issue is left as it was. Reading
// issues goes through to the tracker, so a dry run scopes real issues.
type dryRun struct {
	tracker.Tracker
	log   *slog.Logger
	posts *prometheus.CounterVec
}

// maxDryRunLog caps the body a dry run logs.
const maxDryRunLog = 64 << 10

// UpsertReport logs and counts the body instead of posting it.
func (d *dryRun) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	kind := postKind(body)
	d.posts.WithLabelValues(ref.Source, kind).Inc()
	logged := body
	if len(logged) > maxDryRunLog {
		logged = logged[:maxDryRunLog]
	}
	d.log.InfoContext(ctx, "dry run: would post", "key", ref.Key(), "kind", kind, "bytes", len(body), "body", logged)
	return "dry-run", nil
}

// Post kinds of relay_dry_run_posts_total.
const (
	PostPlaceholder = "placeholder"
	PostReport      = "report"
	PostNote        = "note" // a failure or budget note, below the last report when there is one
)

// postKind tells what a body the worker posts is.
func postKind(body string) string {
	switch {
	case body == placeholder:
		return PostPlaceholder
	case strings.Contains(body, failureNoteHead) || strings.Contains(body, budgetNoteHead):
		return PostNote
	}
	return PostReport
}

// dryRunAll wraps every tracker in dryRun.
func dryRunAll(m map[string]tracker.Tracker, log *slog.Logger, posts *prometheus.CounterVec) map[string]tracker.Tracker {
	out := make(map[string]tracker.Tracker, len(m))
	for k, t := range m {
		out[k] = &dryRun{Tracker: t, log: log, posts: posts}
	}
	return out
}
