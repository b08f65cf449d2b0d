package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
)

// Options configure a Service.
type Options struct {
	Config   *Config
	QueueURL string              // postgres://… or "" for the embedded queue (overrides Config.Queue)
	Secret   func(string) string // reads the environment variables the configuration names
	Trackers map[string]tracker.Tracker
	Parsers  map[string]tracker.WebhookParser // by source; a source without one answers 404
	Scoper   Scoper
	Indexer  Indexer
	Log      *slog.Logger
	// NoWorkers makes a process that only accepts webhooks; Workers of 0
	// in the config is not allowed, so this is the one way.
	NoWorkers bool
	// Permissions check the actor of a comment command by source, where
	// the webhook cannot (Jira: project roles and groups).
	Permissions map[string]PermissionCheck
}

// Service is a running bot: queue, workers and (optionally) the HTTP intake.
type Service struct {
	cfg         *Config
	queue       *Queue
	worker      *Worker
	mirrors     *Mirrors
	metrics     *Metrics
	parsers     map[string]tracker.WebhookParser
	permissions map[string]PermissionCheck
	intake      *intake
	limits      rateLimiter
	log         *slog.Logger
	unlock      func()
	workers     bool
	draining    atomic.Bool
	close       sync.Once
	statusToken string // status.token_env's value (status.go)
}

// New opens the queue and prepares the workers; Run starts them.
func New(ctx context.Context, o Options) (*Service, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Secret == nil {
		o.Secret = func(string) string { return "" }
	}
	cfg := o.Config
	if cfg.GitHub != nil && o.Parsers[tracker.GitHub] == nil && !o.NoWorkers {
		// The parser holds the secret; cmd builds it only when the secret is set.
		o.Log.Warn("github is configured but no GitHub webhook parser was given; /webhooks/github answers 404")
	}
	if cfg.GitLab != nil && o.Parsers[tracker.GitLab] == nil && !o.NoWorkers {
		o.Log.Warn("gitlab is configured but no GitLab webhook parser was given; /webhooks/gitlab answers 404")
	}
	unlock, err := lockStateDir(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	s := &Service{
		cfg: cfg, parsers: o.Parsers, permissions: o.Permissions, log: o.Log, unlock: unlock, workers: !o.NoWorkers, metrics: NewMetrics(),
		intake: newIntake(cfg.IntakeBytes, cfg.MaxBodyBytes),
	}
	s.mirrors = NewMirrors(cfg.StateDir, cfg.GitTimeout, o.Secret, o.Log)
	s.statusToken = o.Secret(cfg.Status.TokenEnv)
	UseGitCredentials(s.mirrors, o.Trackers)
	s.worker = &Worker{
		cfg: cfg, mirrors: s.mirrors, indexer: o.Indexer, scoper: o.Scoper, metrics: s.metrics, log: o.Log,
	}
	if al, ok := o.Trackers[tracker.GitHub].(appLister); ok && cfg.GitHub.AppScale() {
		s.worker.apps = newAppRepos(cfg.GitHub, al, o.Log) // apps.go
	}
	trackers := o.Trackers
	if cfg.DryRun {
		o.Log.Warn("dry_run is on: reports are logged and counted, never posted")
		trackers = dryRunAll(trackers, o.Log, s.metrics.DryRunPosts)
	} else {
		trackers = s.limitPosts(trackers) // postlimit.go
	}
	// Every comment the bot posts (or, in a dry run, logs) passes the
	// egress filter first.
	s.worker.trackers = tracker.FilteredAll(trackers, nil)
	qurl := o.QueueURL
	if qurl == "" {
		qurl = cfg.QueueURL(o.Secret)
	}
	workers := cfg.Workers
	if o.NoWorkers {
		workers = 0
	}
	s.queue, err = OpenQueue(ctx, QueueOptions{
		URL: qurl, StateDir: cfg.StateDir, Workers: workers, MaxAttempts: cfg.MaxAttempts, Fsync: cfg.QueueFsync,
		JobTimeout: cfg.JobTimeout, RescueAfter: cfg.RescueAfter, Worker: s.worker, Log: o.Log,
	})
	if err != nil {
		unlock()
		return nil, err
	}
	s.worker.queue = s.queue
	if s.queue.Backend == "postgres" {
		// Every process taking webhooks on this queue shares the buckets.
		s.limits = &sharedLimiter{limits: cfg.Limits, q: s.queue, log: o.Log}
	} else {
		s.limits = newMemLimiter(cfg.Limits)
	}
	return s, nil
}

// Close releases the queue and the state directory; Run does it when it
// returns, so Close is for a Service that never ran.
func (s *Service) Close() {
	s.close.Do(func() {
		s.queue.Close()
		s.unlock()
	})
}

// Queue returns the service's queue.
func (s *Service) Queue() *Queue { return s.queue }

// Metrics returns the service's metrics.
func (s *Service) Metrics() *Metrics { return s.metrics }

// UseGitCredentials makes m fetch a GitHub or GitLab repository without
// token_env with its tracker's git token when it offers one
// (tracker.GitCredentials: a GitHub App's installation token, the GitLab
// token).
func UseGitCredentials(m *Mirrors, trackers map[string]tracker.Tracker) {
	gh, okGH := trackers[tracker.GitHub].(tracker.GitCredentials)
	gl, okGL := trackers[tracker.GitLab].(tracker.GitCredentials)
	if !okGH && !okGL {
		return
	}
	m.SetGitCredentials(func(ctx context.Context, r Repository) (string, error) {
		switch {
		case r.GitHub != "" && okGH:
			return gh.GitToken(ctx, tracker.Ref{Source: tracker.GitHub, Repo: r.GitHub})
		case r.GitLab != "" && okGL:
			return gl.GitToken(ctx, tracker.Ref{Source: tracker.GitLab, Repo: r.GitLab})
		}
		return "", nil
	})
}

// Mirrors returns the service's repository mirrors.
func (s *Service) Mirrors() *Mirrors { return s.mirrors }

// Run starts the workers and, when l is not nil, serves HTTP on it until
// ctx ends; then it drains: the listener closes, requests in flight finish,
// running jobs get DrainTimeout to finish and are handed back to the queue
// after it. Run closes the queue.
func (s *Service) Run(ctx context.Context, l net.Listener) error {
	defer s.Close()
	if s.worker.apps != nil {
		if _, err := s.worker.apps.load(ctx); err != nil {
			return fmt.Errorf("list the GitHub App's installations: %w", err)
		}
	}
	if err := s.mirrors.Clean(ctx, s.worker.served()); err != nil {
		s.log.Warn("clean old worktrees", "err", err)
	}
	// River stops on its own when its Start context ends; Run decides when.
	runCtx, stopRiver := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRiver()
	if s.workers {
		// Jobs a dead process left running go back to the queue now, not
		// after rescue_after (recover.go).
		if s.queue.Backend == "postgres" {
			if err := s.queue.Beat(ctx); err != nil {
				return err
			}
			go s.heartbeatLoop(runCtx)
			defer s.queue.forgetWorker(context.WithoutCancel(ctx))
		} else {
			s.reclaim(ctx)
		}
		if err := s.queue.Start(runCtx); err != nil {
			return fmt.Errorf("start workers: %w", err)
		}
	}
	go s.forgetLoop(runCtx)
	var srv *http.Server
	srvErr := make(chan error, 1)
	if l != nil {
		srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
		go func() { srvErr <- srv.Serve(l) }()
		s.log.Info("relay serve listening", "addr", l.Addr().String(), "queue", s.queue.Backend, "workers", s.workers)
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-srvErr:
		err = fmt.Errorf("http server: %w", err)
	}
	s.draining.Store(true)
	s.log.Info("relay serve draining", "drain_timeout", s.cfg.DrainTimeout, "shutdown_delay", s.cfg.ShutdownDelay)
	if srv != nil && err == nil {
		// /readyz answers 503 for shutdown_delay while the listener still
		// takes requests, so a load balancer stops sending before it closes.
		time.Sleep(s.cfg.ShutdownDelay)
	}
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if e := srv.Shutdown(sctx); e != nil {
			s.log.Warn("http shutdown", "err", e)
		}
		cancel()
	}
	if s.workers {
		s.worker.draining.Store(true)
		dctx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
		if e := s.queue.Stop(dctx); e != nil {
			s.log.Warn("stop workers", "err", e)
		}
		cancel()
	}
	s.log.Info("relay serve stopped")
	return err
}

// forgetLoop deletes delivery ids older than a week, hourly.
func (s *Service) forgetLoop(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := s.limits.prune(ctx, time.Now()); err != nil && ctx.Err() == nil {
			s.log.Warn("forget full rate-limit buckets", "err", err)
		}
		if err := s.queue.forgetCosts(ctx, time.Now()); err != nil && ctx.Err() == nil {
			s.log.Warn("forget old job costs", "err", err)
		}
		if n, err := s.queue.Forget(ctx, 7*24*time.Hour); err != nil && ctx.Err() == nil {
			s.log.Warn("forget old delivery ids", "err", err)
		} else if n > 0 {
			s.log.Info("forgot old delivery ids", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Handler is the HTTP API: the webhooks, health, readiness and metrics.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhooks/github", s.webhook(tracker.GitHub))
	mux.HandleFunc("POST /webhooks/gitlab", s.webhook(tracker.GitLab))
	mux.HandleFunc("POST /webhooks/jira", s.webhook(tracker.Jira))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	s.mountStatus(mux, s.statusToken)
	return mux
}

func (s *Service) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	checks := map[string]string{}
	ok := true
	check := func(name string, err error) {
		checks[name] = "ok"
		if err != nil {
			checks[name], ok = err.Error(), false
		}
	}
	check("queue", s.queue.Ping(ctx))
	check("state_dir", writable(s.cfg.StateDir))
	_, gerr := s.mirrors.Version(ctx)
	check("git", gerr)
	if s.draining.Load() {
		checks["draining"], ok = "shutting down", false
	}
	code := http.StatusOK
	if !ok {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, checks)
}

func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".ready-*")
	if err != nil {
		return fmt.Errorf("state directory not writable: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// webhook verifies, parses, deduplicates and enqueues one delivery. It
// answers 202 only once the job (or the delivery id, for a trigger that
// joined a queued job) is committed.
func (s *Service) webhook(source string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		defer func() { s.metrics.AcceptDurationMS.Observe(time.Since(start).Seconds()) }()
		result := func(res string, code int, msg string, args ...any) {
			s.metrics.Deliveries.WithLabelValues(source, res).Inc()
			level := slog.LevelInfo
			if code >= 400 {
				level = slog.LevelWarn
			}
			s.log.Log(r.Context(), level, "webhook", append([]any{"source", source, "result", res, "status", code, "detail", msg}, args...)...)
			writeJSON(w, code, map[string]any{"result": res, "message": msg})
		}
		parser := s.parsers[source]
		if parser == nil {
			http.Error(w, source+" is not configured on this relay", http.StatusNotFound)
			return
		}
		if h := signatureHeader(source, parser); h != "" && r.Header.Get(h) == "" {
			// Refused unread: an unsigned body costs no memory.
			result(ResultUnsigned, http.StatusUnauthorized, "no "+h+" header: deliveries must be signed with the configured webhook secret")
			return
		}
		body, release, err := s.intake.read(w, r)
		if release != nil {
			defer release()
		}
		switch {
		case errors.Is(err, errTooBig):
			result(ResultTooLarge, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", s.cfg.MaxBodyBytes))
			return
		case errors.Is(err, errBusy):
			setRetryAfter(w, busyRetry)
			result(ResultBusy, http.StatusServiceUnavailable, "too many large deliveries are being read; redeliver it later")
			return
		case err != nil:
			result(ResultMalformed, http.StatusBadRequest, "read body: "+err.Error())
			return
		}
		if source == tracker.GitHub && github.InstallationEvent(r.Header) {
			s.installationDelivery(w, r, parser, body, result) // apps.go
			return
		}
		t, err := parser.Parse(r.Header, body)
		var ign *tracker.Ignored
		switch {
		case errors.Is(err, tracker.ErrBadSignature):
			result(ResultBadSignature, http.StatusUnauthorized, err.Error())
			return
		case errors.As(err, &ign):
			result(ResultIgnored, http.StatusOK, ign.Reason)
			return
		case err != nil:
			result(ResultMalformed, http.StatusBadRequest, err.Error())
			return
		}
		logArgs := []any{"delivery_id", t.DeliveryID, "key", t.Ref.Key(), "event", t.Event}
		if t.Ref.Source != source {
			result(ResultMalformed, http.StatusBadRequest, fmt.Sprintf("a %s delivery names a %s issue", source, t.Ref.Source), logArgs...)
			return
		}
		repo, ok, err := s.worker.resolve(r.Context(), t.Ref, t.Installation) // apps.go
		if err != nil {
			s.log.Error("find the github app repository", append(logArgs, "err", err)...)
			result(ResultError, http.StatusServiceUnavailable, "could not ask GitHub about the repository; redeliver it", logArgs...)
			return
		}
		if !ok {
			result(ResultIgnored, http.StatusOK, fmt.Sprintf("repository %s is not served by this relay", t.Ref.Repo), logArgs...)
			return
		}
		if !s.switchedOn(repo, &t) {
			result(ResultIgnored, http.StatusOK, fmt.Sprintf("the %s trigger is off for %s (its triggers in repositories)", t.Reason, repo.Key()), logArgs...)
			return
		}
		t.Ref = NormalizeRef(t.Ref)
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		refund, code, res, msg := s.admit(ctx, w, &t, repo)
		if code != 0 {
			result(res, code, msg, append(logArgs, "actor", t.Actor)...)
			return
		}
		e, err := s.queue.Enqueue(ctx, t, s.cfg.MaxAttempts)
		if refund != nil && (err != nil || e.Duplicate || e.Coalesced) {
			refund(context.WithoutCancel(ctx)) // no new job: the tokens go back
		}
		switch {
		case err != nil:
			s.log.Error("enqueue", append(logArgs, "err", err)...)
			result(ResultError, http.StatusServiceUnavailable, "the queue could not take the delivery; redeliver it", logArgs...)
		case e.Duplicate:
			result(ResultDuplicate, http.StatusOK, "delivery already accepted", logArgs...)
		case e.Coalesced:
			if s.queue.Backend == "postgres" {
				// The job it joined may belong to a dead process.
				s.reclaim(ctx)
			}
			result(ResultCoalesced, http.StatusAccepted, fmt.Sprintf("joined job %d, queued or running for %s", e.JobID, t.Ref.Key()), append(logArgs, "job_id", e.JobID)...)
		default:
			s.metrics.JobsEnqueued.Inc()
			result(ResultAccepted, http.StatusAccepted, fmt.Sprintf("queued job %d for %s", e.JobID, t.Ref.Key()), append(logArgs, "job_id", e.JobID)...)
		}
	}
}

// admit decides whether a trigger may enqueue: the source's permission
// check for commands, then the author's and repository's rate, whose
// tokens it takes (refund gives them back when the trigger starts no new
// job). A trigger joining the queued or running job, and a
// redelivery of an accepted delivery, need no token and are not refused.
// It returns the refusal's status, result and message, or 0.
//
// A new issue with a trigger label whose creator fails the check is still
// scoped, as opened, where the repository scopes every opened issue.
func (s *Service) admit(ctx context.Context, w http.ResponseWriter, t *tracker.Trigger, repo Repository) (refund func(context.Context), code int, result, msg string) {
	if ok, err := s.permitted(ctx, *t); err != nil {
		s.log.Error("permission check", "key", t.Ref.Key(), "err", err)
		return nil, http.StatusServiceUnavailable, ResultError, "could not check the commenter's permission; redeliver it"
	} else if !ok {
		if !createdWithLabel(*t) || !s.cfg.Allows(repo, tracker.ReasonOpened) {
			return nil, http.StatusOK, ResultForbidden, s.forbidden(*t)
		}
		t.Reason = tracker.ReasonOpened
	}
	refund, wait, which, err := s.limits.take(ctx, *t, time.Now())
	if err != nil {
		s.log.Error("rate limit", "key", t.Ref.Key(), "err", err)
		return nil, http.StatusServiceUnavailable, ResultError, "could not check the rate limits; redeliver it"
	}
	if wait == 0 {
		return refund, 0, "", ""
	}
	if active, err := s.queue.Active(ctx, t.Ref.Key()); err == nil && active {
		return nil, 0, "", ""
	}
	if seen, err := s.queue.Seen(ctx, t.Ref.Source, t.DeliveryID); err == nil && seen {
		return nil, 0, "", "" // a redelivery: answered as the duplicate it is
	}
	setRetryAfter(w, wait)
	return nil, http.StatusTooManyRequests, ResultRateLimited, fmt.Sprintf("limits.%s reached for %s; try again in %s", which, t.Ref.Key(), wait.Round(time.Second))
}

// forbidden says why the permission check refused t's actor.
func (s *Service) forbidden(t tracker.Trigger) string {
	if t.Ref.Source == tracker.GitLab && s.cfg.GitLab != nil {
		return fmt.Sprintf("%s is not a member of %s with the %s role or higher (gitlab.command_min_access)", t.Actor, t.Ref.Repo, s.cfg.GitLab.MinAccess())
	}
	return fmt.Sprintf("%s is not in a project role or group allowed to command relay", t.Actor)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// StatePath joins a path under the state directory (for cmd's messages).
func (s *Service) StatePath(elem ...string) string {
	return filepath.Join(append([]string{s.cfg.StateDir}, elem...)...)
}
