package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tracker"
)

// Scoper writes the scoping report of an issue from a checkout of its
// repository. cmd/relay wires it to the agent pipeline, or to the offline
// context report when no model is configured.
type Scoper interface {
	Scope(ctx context.Context, in ScopeInput) (Report, error)
}

// ScopeInput is what a Scoper reads.
type ScopeInput struct {
	Issue    tracker.Issue
	Root     string // a worktree at Commit; removed after the job
	StoreDir string // the repository's graph and search index, indexed at Commit
	Commit   string
	JobID    int64
	Log      *slog.Logger
}

// Report is a Scoper's result.
type Report struct {
	Markdown string
	Model    bool             // false: the offline report, no model used
	Tokens   map[string]int64 // per stage (planner, retriever, gap)
	Cost     float64
	// Localization is where the report localizes the issue, best first:
	// kept to find the related issues of later reports (related.go).
	Localization Localization
}

// Indexer brings a repository's store up to date with a checkout. Indexing
// is incremental by content hash, so a job at an unchanged commit re-indexes
// nothing.
type Indexer interface {
	Index(ctx context.Context, root, storeDir string) (IndexStats, error)
}

// IndexStats says what an Index call did.
type IndexStats struct {
	Unchanged bool // nothing to re-index
	Files     int
	Changed   int
}

// overBudget says the cost budget has no room for an attempt until retry.
type overBudget struct {
	retry  time.Time
	window string // "hourly" or "daily"
}

func (e *overBudget) Error() string {
	return "the hourly or daily cost budget is spent until " + e.retry.Format(time.RFC3339)
}

// Permanent marks an error that retrying cannot fix (an issue that does not
// exist, a repository no longer configured): the job fails at once.
type Permanent struct{ Err error }

func (e *Permanent) Error() string { return e.Err.Error() }
func (e *Permanent) Unwrap() error { return e.Err }

// Worker runs scope jobs. It implements river.Worker[ScopeArgs].
type Worker struct {
	river.WorkerDefaults[ScopeArgs]

	cfg      *Config
	queue    *Queue
	trackers map[string]tracker.Tracker
	mirrors  *Mirrors
	indexer  Indexer
	scoper   Scoper
	metrics  *Metrics
	log      *slog.Logger
	apps     *appRepos // a GitHub App's installations' repositories (apps.go); nil without one

	draining   atomic.Bool
	retryAfter sync.Map // job id → time.Time: the earliest retry a tracker asked for
	indexMu    sync.Map // store dir → *sync.Mutex: one index writer per repository
}

// Timeout is the per-job deadline.
func (w *Worker) Timeout(*river.Job[ScopeArgs]) time.Duration { return w.cfg.JobTimeout }

// NextRetry backs off exponentially from retry_backoff up to retry_max, and
// never retries sooner than a tracker's Retry-After or rate-limit reset.
func (w *Worker) NextRetry(job *river.Job[ScopeArgs]) time.Time {
	d := w.cfg.RetryBackoff
	for i := 1; i < job.Attempt && d < w.cfg.RetryMax; i++ {
		d *= 2
	}
	d = min(d, w.cfg.RetryMax)
	next := time.Now().Add(d)
	if v, ok := w.retryAfter.LoadAndDelete(job.ID); ok && v.(time.Time).After(next) {
		next = v.(time.Time)
	}
	return next
}

// Work runs one attempt of a job.
func (w *Worker) Work(ctx context.Context, job *river.Job[ScopeArgs]) error {
	start := time.Now()
	w.metrics.JobsInProgress.Inc()
	defer w.metrics.JobsInProgress.Dec()
	since := job.ScheduledAt
	if job.Attempt <= 1 || since.IsZero() {
		since = job.CreatedAt
	}
	w.metrics.QueueWait.Observe(max(0, start.Sub(since).Seconds()))
	log := w.log.With("job_id", job.ID, "key", job.Args.Key, "attempt", job.Attempt, "delivery_id", job.Args.DeliveryID)
	log.Info("job start", "reason", job.Args.Reason, "queue_wait", start.Sub(since))

	err := w.run(ctx, job, log)
	w.metrics.JobDuration.Observe(time.Since(start).Seconds())
	var over *overBudget
	var posts *postDeferred
	switch {
	case errors.As(err, &over):
		// Not an attempt: the job waits for the budget, its trigger kept.
		w.metrics.BudgetDeferred.Inc()
		log.Warn("cost budget reached; the job waits", "retry_at", over.retry, "cost_per_hour", w.cfg.Limits.CostPerHour, "cost_per_day", w.cfg.Limits.CostPerDay)
		w.postDeferred(ctx, job, over, log)
		return river.JobSnooze(max(time.Second, time.Until(over.retry)))
	case errors.As(err, &posts):
		// Not an attempt: the installation's posting budget refills.
		log.Warn("the installation's posting rate is reached; the job waits", "retry_in", posts.wait, "limit", posts.which)
		return river.JobSnooze(posts.wait)
	case err == nil:
		w.metrics.JobsCompleted.WithLabelValues(OutcomeDone).Inc()
		log.Info("job done", "dur", time.Since(start))
		return nil
	case ctx.Err() != nil && w.draining.Load():
		// Shutdown interrupted the job: back to the queue, attempt not
		// counted, to run first thing on the next start.
		w.metrics.JobsCompleted.WithLabelValues(OutcomeHandback).Inc()
		log.Warn("job handed back to the queue by shutdown", "err", err)
		return river.JobSnooze(0)
	}
	var perm *Permanent
	final := errors.As(err, &perm) || job.Attempt >= job.MaxAttempts
	if !final {
		if ok, after := tracker.Retryable(err); ok && after > 0 {
			w.retryAfter.Store(job.ID, time.Now().Add(after))
		}
		w.metrics.JobsCompleted.WithLabelValues(OutcomeRetry).Inc()
		log.Warn("job attempt failed; it will be retried", "err", err, "attempts_left", job.MaxAttempts-job.Attempt, "advice", advice.For(err, advice.Operator))
		return err
	}
	w.metrics.JobsCompleted.WithLabelValues(OutcomeFailed).Inc()
	log.Error("job failed", "err", err, "advice", advice.For(err, advice.Operator))
	w.postFailure(ctx, job, err, log)
	return river.JobCancel(err)
}

// postFailure edits the issue's comment to say that the job failed: the
// last good report stays, with a short note below it. The error itself,
// which may name internal hosts and paths, goes to the log only (Work
// logged it, with the operator's advice, under the job id the note gives);
// the note adds what the issue's author can make of it (internal/advice),
// a fixed sentence per kind of error.
func (w *Worker) postFailure(ctx context.Context, job *river.Job[ScopeArgs], jobErr error, log *slog.Logger) {
	tr := w.trackers[job.Args.Ref.Source]
	if tr == nil {
		return
	}
	// The job's own deadline may be what failed it: give the edit a fresh one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if job.Args.Reason == tracker.ReasonReview {
		w.postReviewFailure(ctx, job, log)
		return
	}
	last, err := w.lastReports().load(ctx, job.Args.Ref.Key())
	if err != nil {
		log.Error("the failure note replaces the report", "err", err)
	}
	note := fmt.Sprintf(failureNoteHead+": scoping failed; the operator's log has the details, job id %d. "+
		"It tried %d time(s). Comment `%s` to try again.", job.ID, job.Attempt, firstOr(w.cfg.Triggers.Commands, "/relay scope"))
	if a := advice.For(jobErr, advice.Author); a != "" {
		note += " " + advice.Sentence(a)
	}
	if last != "" {
		note += " The report above is from an earlier run."
	}
	if _, err := tr.UpsertReport(ctx, job.Args.Ref, below(last, note)); err != nil {
		log.Error("edit the report comment with the failure", "err", err)
	}
}

// failureNoteHead starts the note of a job that finally failed.
const failureNoteHead = "⚠️ **relay could not scope this issue**"

// lastReports is where the worker keeps the last report of each issue:
// the queue's database (and, from earlier versions, state_dir/reports).
func (w *Worker) lastReports() lastReports {
	return lastReports{q: w.queue, dir: filepath.Join(w.cfg.StateDir, "reports")}
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}

// placeholder is the comment a job posts before it starts working.
const placeholder = "⏳ **relay is scoping this issue…** This comment will be replaced by the report."

// run is one attempt: placeholder, commit, issue, worktree, index, scope,
// report.
func (w *Worker) run(ctx context.Context, job *river.Job[ScopeArgs], log *slog.Logger) error {
	if job.Args.Reason == tracker.ReasonReview {
		return w.review(ctx, job, log)
	}
	ref := job.Args.Ref
	tr := w.trackers[ref.Source]
	if tr == nil {
		return &Permanent{fmt.Errorf("no %s tracker is configured", ref.Source)}
	}
	repo, ok, err := w.resolve(ctx, ref, job.Args.Installation)
	if err != nil {
		return trackerErr("find the github app repository", err)
	}
	if !ok {
		return &Permanent{fmt.Errorf("%s is not a configured repository", ref.Repo)}
	}
	budget := Budget{PerHour: w.cfg.Limits.CostPerHour, PerDay: w.cfg.Limits.CostPerDay}
	if w.cfg.Model.Configured() {
		budget.Reserve = w.cfg.Model.MaxCost
	}
	ok, retry, window, err := w.queue.reserveCost(ctx, job.ID, job.Attempt, budget, time.Now())
	if err != nil {
		return err
	}
	if !ok {
		return &overBudget{retry, window}
	}
	var cost float64 // the attempt's model cost: 0 unless the scope step ran
	defer w.settle(ctx, job, budget, &cost, log)
	// A re-run shows the placeholder while it runs; should it fail,
	// postFailure brings the last report back.
	if _, err := tr.UpsertReport(ctx, ref, placeholder); err != nil {
		return trackerErr("post the placeholder", err)
	}
	commit, err := w.commit(ctx, job, repo)
	if err != nil {
		return err
	}
	log = log.With("commit", commit)
	issue, err := tr.Fetch(ctx, ref)
	if err != nil {
		return trackerErr("fetch the issue", err)
	}
	wt, cleanup, err := w.mirrors.Worktree(ctx, repo, commit, worktreeName(job.ID, job.Attempt))
	if err != nil {
		return err
	}
	defer cleanup()
	storeDir := w.mirrors.StoreDir(repo)
	t0 := time.Now()
	st, fresh, err := w.index(ctx, wt, storeDir, commit)
	if err != nil {
		return fmt.Errorf("index %s at %s: %w", repo.Key(), commit, err)
	}
	w.metrics.IndexDuration.Observe(time.Since(t0).Seconds())
	log.Info("index step", "unchanged", st.Unchanged, "changed", st.Changed, "cold", fresh.Cold, "dur", time.Since(t0))
	rep, err := w.scoper.Scope(ctx, ScopeInput{Issue: issue, Root: wt, StoreDir: storeDir, Commit: commit, JobID: job.ID, Log: log})
	cost = rep.Cost
	if err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	for stage, n := range rep.Tokens {
		w.metrics.LLMTokens.WithLabelValues(stage).Add(float64(n))
	}
	w.metrics.LLMCost.Add(rep.Cost)
	md := w.withRelated(ctx, issue, rep, log)
	body := ReportHead(commit, repo.Branch, fresh) + "\n\n" + ReportBody(md, rep.Model, commit, repo.Branch)
	if _, err := tr.UpsertReport(ctx, ref, body); err != nil {
		return trackerErr("post the report", err)
	}
	if err := w.lastReports().save(context.WithoutCancel(ctx), ref.Key(), body); err != nil {
		log.Warn("a later failure will replace this report", "err", err)
	}
	return nil
}

// commit fetches the mirror and returns the commit the job scopes: the one
// recorded by its first attempt, or else the default branch head now,
// recorded for the attempts after.
func (w *Worker) commit(ctx context.Context, job *river.Job[ScopeArgs], repo Repository) (string, error) {
	recorded, err := w.queue.RecordedCommit(ctx, job.ID)
	if err != nil {
		return "", err
	}
	head, ferr := w.mirrors.Fetch(ctx, repo)
	if recorded != "" {
		if ferr != nil {
			// The recorded commit may still be in the mirror; the worktree
			// step says so if it is not.
			w.log.Warn("fetch failed; scoping the recorded commit from the mirror", "key", job.Args.Key, "err", ferr)
		}
		return recorded, nil
	}
	if ferr != nil {
		return "", ferr
	}
	return w.queue.RecordCommit(ctx, job.ID, head)
}

// index brings the repository's store up to date with the worktree at
// commit, one writer per store, and says how fresh the index is.
func (w *Worker) index(ctx context.Context, root, storeDir, commit string) (IndexStats, Freshness, error) {
	v, _ := w.indexMu.LoadOrStore(storeDir, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	return freshness(storeDir, commit, time.Now, func() (IndexStats, error) { return w.indexer.Index(ctx, root, storeDir) })
}

// trackerErr keeps a tracker's retryable errors retryable and makes the
// others permanent.
func trackerErr(what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	if ok, _ := tracker.Retryable(err); ok || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return &Permanent{err}
}

// NoModelNote ends every offline report relay posts on an issue.
const NoModelNote = "_No model is configured for this relay, so no model was used: this is the offline context report " +
	"(ranked files and symbols). Configure a model (the model section of the bot's relay.yaml; OPENAI_API_KEY or " +
	"OPENAI_BASE_URL on the command line) to have planner and retriever agents read the code and write a scoping report._"

// ReportBody is the comment relay posts on an issue for a report: the
// bot's workers and `relay scope --issue … --post` both build it here, so
// the same issue scoped at the same commit gets the same comment, but for
// the first line (ReportHead) the workers put above it: the index's
// freshness is the bot's to know. markdown
// is the scoping report (model) or the offline context report (no model);
// commit and branch say what was read ("" when not known).
func ReportBody(markdown string, model bool, commit, branch string) string {
	body := strings.TrimSpace(markdown)
	if !model {
		body += "\n\n" + NoModelNote
	}
	return body + "\n\n" + footer(commit, branch, model)
}

func footer(commit, branch string, model bool) string {
	short := commit
	if len(short) > 12 {
		short = short[:12]
	}
	var s string
	switch {
	case short != "" && branch != "":
		s = fmt.Sprintf("<sub>Scoped by relay at `%s` (%s).", short, branch)
	case short != "":
		s = fmt.Sprintf("<sub>Scoped by relay at `%s`.", short)
	default:
		s = "<sub>Scoped by relay."
	}
	if !model {
		s += " No model was used: this is the offline context report."
	}
	return s + "</sub>"
}

var _ river.Worker[ScopeArgs] = (*Worker)(nil)
