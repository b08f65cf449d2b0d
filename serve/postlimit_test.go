package serve

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// countingTracker records when (on the fake clock) each report was posted.
type countingTracker struct {
	tracker.Tracker
	now   func() time.Time
	mu    sync.Mutex
	posts []time.Time
}

func (c *countingTracker) UpsertReport(context.Context, tracker.Ref, string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.posts = append(c.posts, c.now())
	return "1", nil
}

// maxInWindow is the most posts in any window of w: posts are in time order.
func maxInWindow(posts []time.Time, w time.Duration) int {
	most, j := 0, 0
	for i := range posts {
		for posts[i].Sub(posts[j]) >= w {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// TestPostLimitPerInstallation posts 700 reports to one installation on a
// fake clock (sleeping advances it; a deferred post is retried when the
// job's snooze is over, as River would), while for a stretch another
// worker takes each token as it comes: every report is posted, the
// installation keeps GitHub's secondary limits of 80 a minute and 500 an
// hour, the starved post is deferred, not dropped, and another
// installation posts at once meanwhile. On PostgreSQL the buckets are the
// shared ones of relay_rate.
func TestPostLimitPerInstallation(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			t.Parallel()
			var lim rateLimiter = newMemLimiter(Limits{})
			if backend == "postgres" {
				q, err := OpenQueue(t.Context(), QueueOptions{URL: freshPostgres(t), StateDir: t.TempDir(), MaxAttempts: 1, JobTimeout: time.Minute, RescueAfter: 2 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				defer q.Close()
				lim = &sharedLimiter{q: q}
			}
			checkPostLimit(t, lim)
		})
	}
}

func checkPostLimit(t *testing.T, lim rateLimiter) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var sleeps, deferrals, stolen int
	ct := &countingTracker{now: clock}
	p := &postLimited{
		Tracker: ct, limits: func() rateLimiter { return lim },
		installation: func(ref tracker.Ref) int64 {
			if ref.Repo == "other/repo" {
				return 2
			}
			return 1
		},
		now: clock,
		sleep: func(_ context.Context, d time.Duration) error {
			if d > maxPostWait {
				t.Fatalf("slept %s, over maxPostWait", d)
			}
			sleeps++
			now = now.Add(d)
			if mine := len(ct.posts) - stolen; mine >= 300 && mine < 303 {
				// Another worker takes the token first.
				if _, wait, _, err := lim.takeBuckets(t.Context(), postBuckets(1), now); err == nil && wait == 0 {
					ct.posts = append(ct.posts, now)
					stolen++
				}
			}
			return nil
		},
	}
	ref := tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}
	const n = 700
	for range n {
		for {
			_, err := p.UpsertReport(t.Context(), ref, "report")
			var d *postDeferred
			if errors.As(err, &d) {
				deferrals++
				now = now.Add(d.wait) // the job's snooze
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if len(ct.posts)-stolen == 100 {
			// The other installation's budget is its own: no wait.
			before := sleeps
			if _, err := p.UpsertReport(t.Context(), tracker.Ref{Source: tracker.GitHub, Repo: "other/repo", Number: "1"}, "r"); err != nil || sleeps != before {
				t.Fatalf("installation 2 waited for installation 1's budget (err %v)", err)
			}
			ct.posts = ct.posts[:len(ct.posts)-1]
		}
	}
	if len(ct.posts)-stolen != n {
		t.Fatalf("%d of %d reports posted", len(ct.posts)-stolen, n)
	}
	if m := maxInWindow(ct.posts, time.Minute); m > postsPerMinute {
		t.Errorf("%d posts in one minute, over GitHub's %d", m, postsPerMinute)
	}
	if m := maxInWindow(ct.posts, time.Hour); m > postsPerHour {
		t.Errorf("%d posts in one hour, over GitHub's %d", m, postsPerHour)
	}
	if sleeps == 0 || deferrals == 0 {
		t.Errorf("%d waits and %d deferrals: the buckets never ran dry", sleeps, deferrals)
	}
	t.Logf("%d posts (%d by another worker) over %s: %d waits, %d deferrals, at most %d a minute and %d an hour", len(ct.posts), stolen, ct.posts[len(ct.posts)-1].Sub(ct.posts[0]), sleeps, deferrals,
		maxInWindow(ct.posts, time.Minute), maxInWindow(ct.posts, time.Hour))
}
