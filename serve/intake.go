package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"golang.org/x/time/rate"

	"github.com/relayhq/relay/tracker"
)

// SignedParser is a tracker.WebhookParser that names the header its
// deliveries are signed in ("" when it accepts unsigned ones). The server
// refuses a delivery without that header before it reads the body. A
// GitHub parser that does not say is taken to want X-Hub-Signature-256.
type SignedParser interface {
	SignatureHeader() string
}

// signatureHeader is the header a source's deliveries must carry.
func signatureHeader(source string, p tracker.WebhookParser) string {
	if sp, ok := p.(SignedParser); ok {
		return sp.SignatureHeader()
	}
	if source == tracker.GitHub {
		return "X-Hub-Signature-256"
	}
	return ""
}

// intake bounds the webhook bodies read at once by their bytes.
//
// DESIGN: a delivery reserves its Content-Length (or max_body_bytes when
// the sender streams it without one) from a weighted semaphore of
// intake_bytes before a byte is read, and gives it back when the handler
// returns. A delivery that does not fit at once is answered 503 with
// Retry-After instead of waiting, so a flood of large bodies holds neither
// memory nor connections; a known length over max_body_bytes is answered
// 413 unread. Real deliveries are a few kilobytes, so they fit beside any
// number of others; only bodies near the cap compete.
type intake struct {
	sem *semaphore.Weighted
	max int64
}

func newIntake(total, maxBody int64) *intake {
	return &intake{sem: semaphore.NewWeighted(total), max: maxBody}
}

var (
	errBusy   = errors.New("busy")
	errTooBig = errors.New("too large")
	busyRetry = 5 * time.Second // Retry-After of a 503 busy
)

// read reads r's body within the budget; release gives the bytes back.
func (in *intake) read(w http.ResponseWriter, r *http.Request) (body []byte, release func(), err error) {
	need := in.max
	if r.ContentLength > in.max {
		return nil, nil, errTooBig
	}
	if r.ContentLength >= 0 {
		need = r.ContentLength
	}
	if !in.sem.TryAcquire(need) {
		return nil, nil, errBusy
	}
	release = func() { in.sem.Release(need) }
	rd := http.MaxBytesReader(w, r.Body, in.max)
	if r.ContentLength >= 0 {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(rd, body)
	} else {
		body, err = io.ReadAll(rd)
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		err = errTooBig
	}
	return body, release, err
}

func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}

// limiter is a token bucket per author and per repository: a trigger that
// would start a new job takes a token from both.
type limiter struct {
	mu                    sync.Mutex
	author, repo          rate.Limit
	authorBurst, repBurst int
	buckets               map[string]*rate.Limiter
}

func newLimiter(l Limits) *limiter {
	return &limiter{
		author: rate.Limit(l.AuthorPerHour / 3600), authorBurst: max(1, int(l.AuthorPerHour)),
		repo: rate.Limit(l.RepositoryPerHour / 3600), repBurst: max(1, int(l.RepositoryPerHour)),
		buckets: map[string]*rate.Limiter{},
	}
}

func (l *limiter) bucket(key string, r rate.Limit, burst int) *rate.Limiter {
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(r, burst)
		l.buckets[key] = b
	}
	return b
}

// check reports whether t's author and repository have a token left, or
// how long until they have, naming the limit. It takes nothing: take does,
// once the trigger has started a new job (a repeated delivery, or one that
// joins the job, costs nothing). Deliveries checked at the same
// moment may pass the limit by their number.
func (l *limiter) check(t tracker.Trigger, now time.Time) (wait time.Duration, which string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.of(t) {
		if b.lim.TokensAt(now) < 1 {
			// A token comes back every 1/rate.
			d := time.Duration((1 - b.lim.TokensAt(now)) / float64(b.lim.Limit()) * float64(time.Second))
			return max(d, time.Second), b.name
		}
	}
	return 0, ""
}

// take takes a token from t's author and repository.
func (l *limiter) take(t tracker.Trigger, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.of(t) {
		b.lim.AllowN(now, 1)
	}
}

type namedBucket struct {
	name string
	lim  *rate.Limiter
}

func (l *limiter) of(t tracker.Trigger) []namedBucket {
	actor := t.ActorID
	if actor == "" {
		actor = t.Actor
	}
	return []namedBucket{
		{"author_per_hour", l.bucket("author:"+t.Ref.Source+":"+strings.ToLower(actor), l.author, l.authorBurst)},
		{"repository_per_hour", l.bucket("repo:"+t.Ref.Source+":"+strings.ToLower(t.Ref.Repo), l.repo, l.repBurst)},
	}
}

// prune drops the buckets that are full again, so the map holds only
// recent authors.
func (l *limiter) prune(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
}

// PermissionCheck says whether a trigger's actor may start a job, for a
// source whose webhook cannot tell (Jira comment commands: project roles
// and groups, asked of Jira).
type PermissionCheck func(ctx context.Context, t tracker.Trigger) (bool, error)

// permitted runs the source's permission check for a command trigger.
func (s *Service) permitted(ctx context.Context, t tracker.Trigger) (bool, error) {
	check := s.permissions[t.Ref.Source]
	if check == nil || t.Reason != tracker.ReasonCommand {
		return true, nil
	}
	ok, err := check(ctx, t)
	if err != nil {
		return false, fmt.Errorf("check the permission of %s: %w", t.Actor, err)
	}
	return ok, nil
}
