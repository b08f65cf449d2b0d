package serve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/time/rate"

	"github.com/relayhq/relay/tracker"
)

// The per-author and per-repository rate limits.
//
// DESIGN: a trigger that may start a new job takes one token from its
// author's bucket and one from its repository's before it is enqueued,
// both or neither, in one atomic step; a trigger the queue then answers as
// a duplicate or joins to the job (or that the queue cannot take)
// gives them back. Taking first and giving back after is what makes the
// limit exact under simultaneous deliveries: no two of them can both see
// the last token. The embedded queue belongs to one process, so its
// buckets are x/time/rate limiters in memory under one mutex. On a
// PostgreSQL queue every process taking webhooks shares the buckets in the
// table relay_rate (key, tokens, at_s): a take is an INSERT … ON CONFLICT
// DO UPDATE … WHERE refilled tokens >= 1 RETURNING per bucket, in one
// transaction, so the row lock serialises the processes on a bucket and a
// refused second bucket rolls the first back. The author's bucket is always
// locked before the repository's, so two takes cannot deadlock. A bucket
// holds the hourly limit (at least 1) and refills at limit/3600 per
// second, as the in-memory one does.

// rateLimiter takes a token from a trigger's author and repository.
type rateLimiter interface {
	// take takes the tokens and returns how to give them back, or how long
	// until they are there and which limit is reached (wait > 0).
	take(ctx context.Context, t tracker.Trigger, now time.Time) (refund func(context.Context), wait time.Duration, which string, err error)
	// takeBuckets takes one token from each bucket, all or none, the same
	// way (postlimit.go's per-installation buckets).
	takeBuckets(ctx context.Context, specs []bucketSpec, now time.Time) (refund func(context.Context), wait time.Duration, which string, err error)
	// prune forgets the buckets that are full again.
	prune(ctx context.Context, now time.Time) error
}

// bucketSpec is one of a trigger's two buckets.
type bucketSpec struct {
	name, key string
	rate      float64 // tokens per second
	burst     float64
}

func bucketSpecs(l Limits, t tracker.Trigger) []bucketSpec {
	actor := t.ActorID
	if actor == "" {
		actor = t.Actor
	}
	return []bucketSpec{
		{"author_per_hour", "author:" + t.Ref.Source + ":" + strings.ToLower(actor), l.AuthorPerHour / 3600, float64(max(1, int(l.AuthorPerHour)))},
		{"repository_per_hour", "repo:" + t.Ref.Source + ":" + strings.ToLower(t.Ref.Repo), l.RepositoryPerHour / 3600, float64(max(1, int(l.RepositoryPerHour)))},
	}
}

// refillWait is how long a bucket holding tokens takes to hold one.
func refillWait(tokens, perSecond float64) time.Duration {
	if perSecond <= 0 {
		return time.Hour
	}
	return max(time.Duration((1-tokens)/perSecond*float64(time.Second)), time.Second)
}

// memLimiter keeps the buckets in this process (the embedded queue).
type memLimiter struct {
	limits  Limits
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newMemLimiter(l Limits) *memLimiter {
	return &memLimiter{limits: l, buckets: map[string]*rate.Limiter{}}
}

func (l *memLimiter) take(ctx context.Context, t tracker.Trigger, now time.Time) (func(context.Context), time.Duration, string, error) {
	return l.takeBuckets(ctx, bucketSpecs(l.limits, t), now)
}

func (l *memLimiter) takeBuckets(_ context.Context, specs []bucketSpec, now time.Time) (func(context.Context), time.Duration, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lims := make([]*rate.Limiter, len(specs))
	for i, b := range specs {
		lims[i] = l.buckets[b.key]
		if lims[i] == nil {
			lims[i] = rate.NewLimiter(rate.Limit(b.rate), int(b.burst))
			l.buckets[b.key] = lims[i]
		}
		if tok := lims[i].TokensAt(now); tok < 1 {
			return nil, refillWait(tok, b.rate), b.name, nil
		}
	}
	res := make([]*rate.Reservation, len(lims))
	for i, lim := range lims {
		res[i] = lim.ReserveN(now, 1)
	}
	return func(context.Context) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, r := range res {
			r.CancelAt(now)
		}
	}, 0, "", nil
}

func (l *memLimiter) prune(_ context.Context, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
	return nil
}

const createRateTableSQL = `
CREATE TABLE IF NOT EXISTS relay_rate (
	key    TEXT PRIMARY KEY,
	tokens DOUBLE PRECISION NOT NULL,
	at_s   DOUBLE PRECISION NOT NULL
)`

// sharedLimiter keeps the buckets in a PostgreSQL queue's relay_rate.
type sharedLimiter struct {
	limits Limits
	q      *Queue
	log    *slog.Logger
}

// errNoToken rolls back a take that found a bucket empty.
var errNoToken = errors.New("no token")

// The refilled tokens of a bucket row r at $3 (unix seconds), rate $4 per
// second, capped at the burst $2.
const refilledSQL = `least($2::float8, r.tokens + greatest(0, $3::float8 - r.at_s) * $4::float8)`

func (l *sharedLimiter) take(ctx context.Context, t tracker.Trigger, now time.Time) (func(context.Context), time.Duration, string, error) {
	return l.takeBuckets(ctx, bucketSpecs(l.limits, t), now)
}

func (l *sharedLimiter) takeBuckets(ctx context.Context, specs []bucketSpec, now time.Time) (func(context.Context), time.Duration, string, error) {
	at := float64(now.UnixMicro()) / 1e6
	var wait time.Duration
	var which string
	err := l.q.b.inTx(ctx, false, func(tx txOps) error {
		for _, b := range specs {
			_, err := tx.queryFloat(`INSERT INTO relay_rate AS r (key, tokens, at_s) VALUES ($1, $2::float8 - 1, $3::float8)
				ON CONFLICT (key) DO UPDATE SET tokens = `+refilledSQL+` - 1, at_s = greatest(r.at_s, $3::float8)
				WHERE `+refilledSQL+` >= 1 RETURNING tokens`, b.key, b.burst, at, b.rate)
			if isNoRows(err) {
				// The row is locked by the refused upsert: read what it holds.
				tok, err := tx.queryFloat(`SELECT `+refilledSQL+` FROM relay_rate AS r WHERE key = $1`, b.key, b.burst, at, b.rate)
				if err != nil {
					return err
				}
				wait, which = refillWait(tok, b.rate), b.name
				return errNoToken
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errNoToken):
		return nil, wait, which, nil
	case err != nil:
		return nil, 0, "", fmt.Errorf("take a rate-limit token: %w", err)
	}
	return func(ctx context.Context) {
		for _, b := range specs {
			// A token given back never fills a bucket past its burst.
			if _, err := l.q.b.exec(ctx, `UPDATE relay_rate SET tokens = least($2::float8, tokens + 1) WHERE key = $1`, b.key, b.burst); err != nil {
				l.log.Warn("give back a rate-limit token; the bucket stays one short until it refills", "key", b.key, "err", err)
			}
		}
	}, 0, "", nil
}

// prune deletes the buckets that have refilled: a bucket is full an hour
// (burst/rate) after its last take, at most.
func (l *sharedLimiter) prune(ctx context.Context, now time.Time) error {
	full := time.Hour
	for _, perHour := range []float64{l.limits.AuthorPerHour, l.limits.RepositoryPerHour} {
		if perHour > 0 {
			full = max(full, time.Duration(float64(max(1, int(perHour)))/perHour*float64(time.Hour)))
		}
	}
	if _, err := l.q.b.exec(ctx, `DELETE FROM relay_rate WHERE at_s < $1`, float64(now.Add(-full).Unix())); err != nil {
		return fmt.Errorf("forget full rate-limit buckets: %w", err)
	}
	return nil
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) }
