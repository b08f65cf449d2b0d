package serve

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/relayhq/relay/tracker"
)

// The per-installation posting rate.
//
// DESIGN: GitHub's secondary rate limits allow an installation at most 80
// content-creating requests a minute and 500 an hour. A token bucket of
// burst B refilling at r per second lets B + r·W requests through in any
// window of W seconds, so a bucket of 80 refilling at 80/60 would let 160
// through in a minute. Each limit is therefore a bucket whose burst and
// refill together stay within it: 20 at once and 1 a second (20 + 60 = 80
// in any minute), and 50 at once and 450 an hour (50 + 450 = 500 in any
// hour). Every report a worker creates or edits on GitHub first takes one
// token from both of its installation's buckets, through the same
// rateLimiter as the intake's limits: in memory for the embedded queue,
// shared in relay_rate for a PostgreSQL one, so every worker process of
// the queue draws on one budget per installation. A post waits for its
// tokens (a token is at most 8 s away: 1/r of the hour bucket), which
// keeps the attempt's work (the report is often posted after the model
// ran); when other workers keep taking them first and the post has waited
// maxPostWait in all, the attempt ends with postDeferred and the job is
// snoozed until tokens are there: deferred, never dropped, the attempt
// not counted. Only a GitHub App's posts are limited here (a token's are
// left to GitHub's own 403 and Retry-After, which retry the job); a
// repository no installation is known for shares the budget "token".
const (
	postsPerMinute = 80
	postsPerHour   = 500
	minuteBurst    = 20
	hourBurst      = 50
	maxPostWait    = 90 * time.Second
)

// postDeferred ends an attempt whose post would pass the installation's
// rate: the worker snoozes the job for wait.
type postDeferred struct {
	wait  time.Duration
	which string
}

func (e *postDeferred) Error() string {
	return fmt.Sprintf("github %s reached; posting again in %s", e.which, e.wait.Round(time.Second))
}

// postBuckets are the buckets of one installation (0: a token).
func postBuckets(installation int64) []bucketSpec {
	who := "token"
	if installation != 0 {
		who = strconv.FormatInt(installation, 10)
	}
	return []bucketSpec{
		{"posts_per_minute of installation " + who, "post:github:" + who + ":minute", (postsPerMinute - minuteBurst) / 60.0, minuteBurst},
		{"posts_per_hour of installation " + who, "post:github:" + who + ":hour", (postsPerHour - hourBurst) / 3600.0, hourBurst},
	}
}

// postLimited is a GitHub tracker whose UpsertReport keeps its
// installation's posting rate.
type postLimited struct {
	tracker.Tracker
	limits       func() rateLimiter
	installation func(tracker.Ref) int64
	now          func() time.Time
	sleep        func(context.Context, time.Duration) error
}

// UpsertReport takes the installation's tokens, waiting up to maxPostWait
// in all for them, then posts.
func (p *postLimited) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	specs := postBuckets(p.installation(ref))
	var waited time.Duration
	for {
		_, wait, which, err := p.limits().takeBuckets(ctx, specs, p.now())
		if err != nil {
			return "", err
		}
		if wait == 0 {
			return p.Tracker.UpsertReport(ctx, ref, body)
		}
		if waited+wait > maxPostWait {
			return "", &postDeferred{wait: wait, which: which}
		}
		if err := p.sleep(ctx, wait); err != nil {
			return "", err
		}
		waited += wait
	}
}

// GitToken passes the tracker's git credentials through.
func (p *postLimited) GitToken(ctx context.Context, ref tracker.Ref) (string, error) {
	if gc, ok := p.Tracker.(tracker.GitCredentials); ok {
		return gc.GitToken(ctx, ref)
	}
	return "", nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// limitPosts wraps the GitHub tracker of trackers with the service's
// per-installation posting rate when GitHub is a GitHub App; a token's
// posts are not limited here (GitHub's own 403 with Retry-After retries
// the job).
func (s *Service) limitPosts(trackers map[string]tracker.Tracker) map[string]tracker.Tracker {
	gh := trackers[tracker.GitHub]
	if gh == nil || s.cfg.GitHub == nil || s.cfg.GitHub.AppID == 0 {
		return trackers
	}
	out := make(map[string]tracker.Tracker, len(trackers))
	for k, v := range trackers {
		out[k] = v
	}
	out[tracker.GitHub] = &postLimited{
		Tracker: gh, limits: func() rateLimiter { return s.limits }, installation: s.worker.installationOf,
		now: time.Now, sleep: sleepCtx,
	}
	return out
}
