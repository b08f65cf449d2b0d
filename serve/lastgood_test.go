package serve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

// TestLastReportSharedQueue: a report posted by one Service is restored,
// with the failure note below it, when a later run of the issue fails in
// another Service on the same queue. On PostgreSQL the two have state
// directories of their own, as processes on different hosts do; the
// embedded queue lives in its state directory, so there they share it.
// The second trigger spells the repository in other case: the report is
// kept by the normalised key.
func TestLastReportSharedQueue(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			qurl := queueURL(t, backend)
			gh := newFakeTracker(tracker.GitHub)
			trackers := map[string]tracker.Tracker{tracker.GitHub: gh}
			key := "github:acme/a#5"

			cfg1 := testConfig(t, repos)
			cfg1.MaxAttempts = 1
			first := startService(t, cfg1, serviceDeps{trackers: trackers, queueURL: qurl, scoper: &fakeScoper{running: map[string]int{}}})
			sendBurst(t, first.url, []testPayload{{Delivery: "s-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "5"}}})
			waitFor(t, time.Minute, "the good report's job to complete", func() bool {
				jobs, err := first.queue.Jobs(t.Context(), rivertype.JobStateCompleted)
				return err == nil && len(jobs) == 1
			})
			good := gh.current(key)
			if !strings.Contains(good, "## Report for Issue 5") {
				t.Fatalf("no good report posted:\n%s", good)
			}
			if err := first.stop(); err != nil {
				t.Fatal(err)
			}

			cfg2 := testConfig(t, repos)
			cfg2.MaxAttempts = 1
			if backend == "" {
				cfg2.StateDir = cfg1.StateDir
			}
			failing := &fakeScoper{running: map[string]int{}, err: func(ScopeInput) error { return errors.New("fatal: no such repository") }}
			second := startService(t, cfg2, serviceDeps{trackers: trackers, queueURL: qurl, scoper: failing})
			sendBurst(t, second.url, []testPayload{{Delivery: "s-2", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "Acme/A", Number: "5"}}})
			waitFor(t, time.Minute, "the failure note", func() bool { return strings.Contains(gh.current(key), "could not scope") })
			got := gh.current(key)
			if !strings.HasPrefix(got, good+"\n\n---\n\n") || !strings.Contains(got, "The report above is from an earlier run.") {
				t.Errorf("the other process did not restore the good report above the failure note:\n--- good\n%s\n--- now\n%s", good, got)
			}
		})
	}
}

// TestLastReportLegacyFile: a last report kept by an earlier version in
// state_dir/reports is found when the database has none, copied into the
// database, and its file removed when a newer report is saved.
func TestLastReportLegacyFile(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			dir := t.TempDir()
			q, err := OpenQueue(t.Context(), QueueOptions{URL: queueURL(t, backend), StateDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			l := lastReports{q: q, dir: filepath.Join(dir, "reports")}
			key := "github:acme/a#9"
			if got, err := l.load(t.Context(), key); err != nil || got != "" {
				t.Fatalf("load with no report = %q, %v; want \"\"", got, err)
			}
			if err := os.MkdirAll(l.dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(l.legacyPath(key), []byte("old report"), 0o600); err != nil {
				t.Fatal(err)
			}
			if got, err := l.load(t.Context(), key); err != nil || got != "old report" {
				t.Fatalf("load of the legacy file = %q, %v", got, err)
			}
			if got, err := q.LastReport(t.Context(), key); err != nil || got != "old report" {
				t.Fatalf("the legacy report was not copied into the database: %q, %v", got, err)
			}
			if err := l.save(t.Context(), key, "new report"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(l.legacyPath(key)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the stale legacy file is still there: %v", err)
			}
			if got, err := l.load(t.Context(), key); err != nil || got != "new report" {
				t.Errorf("load after save = %q, %v; want the new report", got, err)
			}
		})
	}
}
