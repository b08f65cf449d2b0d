package serve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	_ "modernc.org/sqlite" // the embedded queue's database/sql driver

	"github.com/relayhq/relay/tracker"
)

// ScopeArgs is one job: scope an issue and post its report. Only Key takes
// part in uniqueness, so every trigger for an issue maps to the one job that
// is queued or running for it.
type ScopeArgs struct {
	Key          string      `json:"key" river:"unique"`
	Ref          tracker.Ref `json:"ref"`
	DeliveryID   string      `json:"delivery_id,omitempty"`
	Event        string      `json:"event,omitempty"`
	Reason       string      `json:"reason"`
	Actor        string      `json:"actor,omitempty"`
	Installation int64       `json:"installation,omitempty"`
	SemanticID   string      `json:"semantic_id,omitempty"` // tracker.Trigger.SemanticID: deduplicated as a delivery id
	AcceptedAt   time.Time   `json:"accepted_at"`
	// Head and Base are a review job's head commit and target branch, as
	// its trigger named them (reviewKey).
	Head string `json:"head,omitempty"`
	Base string `json:"base,omitempty"`
}

// JobKind is the River kind of scope jobs.
const JobKind = "relay_scope"

// Kind implements river.JobArgs.
func (ScopeArgs) Kind() string { return JobKind }

// uniqueStates are the states in which a job coalesces new triggers: queued
// (available, scheduled, pending, waiting for a retry) or running. A trigger
// after the job completed starts a new run, which edits the same comment.
var uniqueStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// Enqueued says what Enqueue did with a trigger.
type Enqueued struct {
	JobID     int64
	Duplicate bool // the delivery id was seen before: nothing inserted
	Coalesced bool // a job for the issue is queued or running: the trigger joined it
}

// QueueOptions configure OpenQueue.
type QueueOptions struct {
	URL         string // postgres://… or "" for the embedded SQLite queue
	StateDir    string // holds queue.db for the embedded queue
	Workers     int    // 0: insert-only (relay batch --queue)
	MaxAttempts int
	JobTimeout  time.Duration
	RescueAfter time.Duration
	Retry       river.ClientRetryPolicy
	Worker      river.Worker[ScopeArgs] // required when Workers > 0
	Log         *slog.Logger
	// Fsync makes the embedded queue fsync every commit (SQLite
	// synchronous=FULL). Without it (synchronous=NORMAL in WAL mode) a
	// commit survives the process being killed — the WAL is in the OS's
	// hands — but not a power loss or kernel crash right after it; in
	// exchange a commit costs no disk flush (accept p99 ~45 ms instead of
	// ~320 ms at 100 req/s on a slow disk).
	Fsync bool
	// PollInterval is how often an idle worker looks for jobs when no
	// notification arrives (SQLite has none); default 200ms.
	PollInterval time.Duration
	// ClientID names this process's River client in the jobs it runs
	// (attempted_by) and in its heartbeat row; default a fresh one.
	ClientID string
}

// Queue is the durable job queue: River over SQLite or PostgreSQL, plus two
// tables of relay's own in the same database: relay_delivery (delivery ids
// already accepted, written in the job's insert transaction) and
// relay_job_commit (the commit each job scopes, recorded once).
// (relay_cost, relay_worker and relay_report are described where they are
// used: budget.go, recover.go, lastgood.go.)
type Queue struct {
	Backend  string // "sqlite" or "postgres"
	b        backend
	clientID string // this process's River client id (its heartbeat row)
}

// backend hides River's transaction type (*sql.Tx or pgx.Tx).
type backend interface {
	enqueue(ctx context.Context, args ScopeArgs, opts *river.InsertOpts) (Enqueued, error)
	exec(ctx context.Context, q string, args ...any) (int64, error)
	queryString(ctx context.Context, q string, args ...any) (string, error)
	ping(ctx context.Context) error
	start(ctx context.Context) error
	stop(ctx context.Context) error
	stopAndCancel(ctx context.Context) error
	jobs(ctx context.Context, states ...rivertype.JobState) ([]*rivertype.JobRow, error)
	inTx(ctx context.Context, lock bool, fn func(txOps) error) error
	close()
}

// OpenQueue opens (and migrates) the queue.
func OpenQueue(ctx context.Context, o QueueOptions) (*Queue, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.PollInterval == 0 {
		o.PollInterval = 200 * time.Millisecond
	}
	if o.ClientID == "" {
		o.ClientID = newClientID()
	}
	var q *Queue
	var err error
	if o.URL == "" {
		q, err = openSQLite(ctx, o)
	} else {
		q, err = openPostgres(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	q.clientID = o.ClientID
	return q, nil
}

func riverConfig(o QueueOptions) *river.Config {
	cfg := &river.Config{
		ID:                   o.ClientID,
		Logger:               o.Log.With("component", "river"),
		MaxAttempts:          o.MaxAttempts,
		JobTimeout:           o.JobTimeout,
		RescueStuckJobsAfter: o.RescueAfter,
		RetryPolicy:          o.Retry,
		FetchPollInterval:    o.PollInterval,
		FetchCooldown:        10 * time.Millisecond,
		// Finished jobs are kept a week for inspection.
		CompletedJobRetentionPeriod: 7 * 24 * time.Hour,
		Workers:                     river.NewWorkers(),
		// An insert-only client (relay batch --queue) has no worker to
		// check the kind against; the processes that run the jobs do.
		SkipUnknownJobCheck: o.Worker == nil,
	}
	if o.Worker != nil {
		river.AddWorker(cfg.Workers, o.Worker)
	}
	if o.Workers > 0 {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}}
	}
	return cfg
}

const createTablesSQL = `
CREATE TABLE IF NOT EXISTS relay_delivery (
	source      TEXT NOT NULL,
	delivery_id TEXT NOT NULL,
	job_key     TEXT NOT NULL,
	received_at TIMESTAMP NOT NULL,
	PRIMARY KEY (source, delivery_id)
);
CREATE TABLE IF NOT EXISTS relay_job_commit (
	job_id     BIGINT PRIMARY KEY,
	commit_sha TEXT NOT NULL
);`

func openSQLite(ctx context.Context, o QueueOptions) (*Queue, error) {
	if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(o.StateDir, "queue.db")
	// WAL keeps readers off the writer; one connection, as River's SQLite
	// driver asks, serialises River's own goroutines and the webhook inserts.
	sync := "NORMAL"
	if o.Fsync {
		sync = "FULL"
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous("+sync+")&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	driver := riversqlite.New(db)
	if err := migrate(ctx, driver); err != nil {
		db.Close()
		return nil, err
	}
	for _, stmt := range strings.Split(createTablesSQL+";"+createBudgetTableSQL+";"+createReportTableSQL+";"+createLocalizationTableSQL, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("create queue tables: %w", err)
		}
	}
	client, err := river.NewClient(driver, riverConfig(o))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("create queue client: %w", err)
	}
	return &Queue{Backend: "sqlite", b: &riverBackend[*sql.Tx]{client: client, db: sqliteDB{db}}}, nil
}

func openPostgres(ctx context.Context, o QueueOptions) (*Queue, error) {
	pool, err := pgxpool.New(ctx, o.URL)
	if err != nil {
		return nil, fmt.Errorf("open queue %s: %w", Redact(o.URL), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to queue %s: %w", Redact(o.URL), err)
	}
	driver := riverpgxv5.New(pool)
	// Several processes may start at once: one migrates at a time.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to queue: %w", err)
	}
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock(7231001)")
	if err == nil {
		err = migrate(ctx, driver)
		if err == nil {
			_, err = conn.Exec(ctx, createTablesSQL+";"+createWorkerTableSQL+";"+createBudgetTableSQL+";"+createReportTableSQL+";"+createRateTableSQL+";"+createLocalizationTableSQL)
		}
		_, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(7231001)")
		err = errors.Join(err, uerr)
	}
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("prepare queue: %w", err)
	}
	client, err := river.NewClient(driver, riverConfig(o))
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("create queue client: %w", err)
	}
	return &Queue{Backend: "postgres", b: &riverBackend[pgx.Tx]{client: client, db: pgDB{pool}}}, nil
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("migrate queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate queue: %w", err)
	}
	return nil
}

// NormalizeRef spells an issue the one way its tracker treats alike:
// GitHub's owner/name and GitLab's project path lower-cased (both ignore
// case there), Jira's
// project and issue keys upper-cased. ACME/Shop#7 and acme/shop#7 are one
// job.
func NormalizeRef(r tracker.Ref) tracker.Ref {
	switch r.Source {
	case tracker.GitHub, tracker.GitLab:
		r.Repo = strings.ToLower(r.Repo)
	case tracker.Jira:
		r.Repo, r.Number = strings.ToUpper(r.Repo), strings.ToUpper(r.Number)
	}
	return r
}

// Enqueue commits t as a job, unless its delivery was seen before: the
// delivery row and the job row are written in one transaction. The issue
// key is normalised (NormalizeRef).
func (q *Queue) Enqueue(ctx context.Context, t tracker.Trigger, maxAttempts int) (Enqueued, error) {
	t.Ref = NormalizeRef(t.Ref)
	args := ScopeArgs{
		Key: t.Ref.Key(), Ref: t.Ref, DeliveryID: t.DeliveryID, Event: t.Event, Reason: t.Reason,
		Actor: t.Actor, Installation: t.Installation, SemanticID: t.SemanticID, AcceptedAt: time.Now().UTC(), Head: t.Head, Base: t.Base,
	}
	if t.Reason == tracker.ReasonReview {
		args.Key = reviewKey(t)
	}
	opts := &river.InsertOpts{
		MaxAttempts: maxAttempts,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByState: uniqueStates},
	}
	return q.b.enqueue(ctx, args, opts)
}

// RecordCommit records the commit a job scopes the first time it is called
// for the job and returns the recorded one ever after, so every attempt
// scopes the same tree.
func (q *Queue) RecordCommit(ctx context.Context, jobID int64, commit string) (string, error) {
	if _, err := q.b.exec(ctx, `INSERT INTO relay_job_commit (job_id, commit_sha) VALUES ($1, $2) ON CONFLICT (job_id) DO NOTHING`, jobID, commit); err != nil {
		return "", fmt.Errorf("record job commit: %w", err)
	}
	c, err := q.b.queryString(ctx, `SELECT commit_sha FROM relay_job_commit WHERE job_id = $1`, jobID)
	if err != nil {
		return "", fmt.Errorf("read job commit: %w", err)
	}
	return c, nil
}

// RecordedCommit returns the commit recorded for a job, or "".
func (q *Queue) RecordedCommit(ctx context.Context, jobID int64) (string, error) {
	c, err := q.b.queryString(ctx, `SELECT commit_sha FROM relay_job_commit WHERE job_id = $1`, jobID)
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return c, err
}

// Forget deletes delivery ids older than age: providers redeliver within
// days, and the table must not grow forever.
func (q *Queue) Forget(ctx context.Context, age time.Duration) (int64, error) {
	return q.b.exec(ctx, `DELETE FROM relay_delivery WHERE received_at < $1`, time.Now().UTC().Add(-age))
}

// Ping checks the queue's database.
func (q *Queue) Ping(ctx context.Context) error { return q.b.ping(ctx) }

// Start starts the workers (Workers > 0).
func (q *Queue) Start(ctx context.Context) error { return q.b.start(ctx) }

// Stop stops fetching and waits for running jobs until ctx ends; then their
// contexts are cancelled and Stop waits for them to hand their jobs back.
func (q *Queue) Stop(ctx context.Context) error {
	err := q.b.stop(ctx)
	if err != nil && ctx.Err() != nil {
		return q.b.stopAndCancel(context.Background())
	}
	return err
}

// Jobs lists jobs in the given states (all states when none), for tests and
// inspection.
func (q *Queue) Jobs(ctx context.Context, states ...rivertype.JobState) ([]*rivertype.JobRow, error) {
	return q.b.jobs(ctx, states...)
}

// Close releases the database; Stop first.
func (q *Queue) Close() { q.b.close() }

// sqlDB adapts the two database APIs to what riverBackend needs.
type sqlDB[TTx any] interface {
	begin(ctx context.Context) (TTx, error)
	txExec(ctx context.Context, tx TTx, q string, args ...any) (int64, error)
	txQueryFloat(ctx context.Context, tx TTx, q string, args ...any) (float64, error)
	// txLock serialises budget transactions between processes.
	txLock(ctx context.Context, tx TTx) error
	commit(ctx context.Context, tx TTx) error
	rollback(ctx context.Context, tx TTx)
	exec(ctx context.Context, q string, args ...any) (int64, error)
	queryString(ctx context.Context, q string, args ...any) (string, error)
	ping(ctx context.Context) error
	close()
}

// semanticDeliveryID is the relay_delivery id of a semantic key.
func semanticDeliveryID(key string) string {
	if key == "" {
		return ""
	}
	return "semantic:" + key
}

type riverBackend[TTx any] struct {
	client *river.Client[TTx]
	db     sqlDB[TTx]
}

func (b *riverBackend[TTx]) enqueue(ctx context.Context, args ScopeArgs, opts *river.InsertOpts) (Enqueued, error) {
	tx, err := b.db.begin(ctx)
	if err != nil {
		return Enqueued{}, fmt.Errorf("enqueue: %w", err)
	}
	defer b.db.rollback(ctx, tx)
	// The semantic key is kept beside the delivery ids, under a prefix no
	// delivery id has, so a second webhook's delivery of the same comment
	// is the duplicate it is.
	for _, id := range []string{args.DeliveryID, semanticDeliveryID(args.SemanticID)} {
		if id == "" {
			continue
		}
		n, err := b.db.txExec(ctx, tx, `INSERT INTO relay_delivery (source, delivery_id, job_key, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
			args.Ref.Source, id, args.Key, args.AcceptedAt)
		if err != nil {
			return Enqueued{}, fmt.Errorf("enqueue: record delivery: %w", err)
		}
		if n == 0 {
			return Enqueued{Duplicate: true}, nil
		}
	}
	res, err := b.client.InsertTx(ctx, tx, args, opts)
	if err != nil {
		return Enqueued{}, fmt.Errorf("enqueue: %w", err)
	}
	if err := b.db.commit(ctx, tx); err != nil {
		return Enqueued{}, fmt.Errorf("enqueue: commit: %w", err)
	}
	return Enqueued{JobID: res.Job.ID, Coalesced: res.UniqueSkippedAsDuplicate}, nil
}

// txBound runs one transaction's statements.
type txBound[TTx any] struct {
	ctx context.Context
	db  sqlDB[TTx]
	tx  TTx
}

func (t txBound[TTx]) exec(q string, args ...any) error {
	_, err := t.db.txExec(t.ctx, t.tx, q, args...)
	return err
}

func (t txBound[TTx]) queryFloat(q string, args ...any) (float64, error) {
	return t.db.txQueryFloat(t.ctx, t.tx, q, args...)
}

func (b *riverBackend[TTx]) inTx(ctx context.Context, lock bool, fn func(txOps) error) error {
	tx, err := b.db.begin(ctx)
	if err != nil {
		return err
	}
	defer b.db.rollback(ctx, tx)
	if lock {
		if err := b.db.txLock(ctx, tx); err != nil {
			return err
		}
	}
	if err := fn(txBound[TTx]{ctx, b.db, tx}); err != nil {
		return err
	}
	return b.db.commit(ctx, tx)
}

func (b *riverBackend[TTx]) exec(ctx context.Context, q string, args ...any) (int64, error) {
	return b.db.exec(ctx, q, args...)
}

func (b *riverBackend[TTx]) queryString(ctx context.Context, q string, args ...any) (string, error) {
	return b.db.queryString(ctx, q, args...)
}
func (b *riverBackend[TTx]) ping(ctx context.Context) error { return b.db.ping(ctx) }
func (b *riverBackend[TTx]) start(ctx context.Context) error {
	return b.client.Start(ctx)
}
func (b *riverBackend[TTx]) stop(ctx context.Context) error { return b.client.Stop(ctx) }
func (b *riverBackend[TTx]) stopAndCancel(ctx context.Context) error {
	return b.client.StopAndCancel(ctx)
}
func (b *riverBackend[TTx]) close() { b.db.close() }

func (b *riverBackend[TTx]) jobs(ctx context.Context, states ...rivertype.JobState) ([]*rivertype.JobRow, error) {
	p := river.NewJobListParams().First(10000)
	if len(states) > 0 {
		p = p.States(states...)
	}
	res, err := b.client.JobList(ctx, p)
	if err != nil {
		return nil, err
	}
	return res.Jobs, nil
}

// sqliteDB is the embedded queue's database.
type sqliteDB struct{ db *sql.DB }

var pgParamRE = regexp.MustCompile(`\$\d+`)

// lite rewrites $n parameters as ?: the queries use each parameter once,
// in order.
func lite(q string) string { return pgParamRE.ReplaceAllString(q, "?") }

func (d sqliteDB) begin(ctx context.Context) (*sql.Tx, error) { return d.db.BeginTx(ctx, nil) }
func (d sqliteDB) txExec(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
	r, err := tx.ExecContext(ctx, lite(q), args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
func (d sqliteDB) txQueryFloat(ctx context.Context, tx *sql.Tx, q string, args ...any) (float64, error) {
	var f float64
	err := tx.QueryRowContext(ctx, lite(q), args...).Scan(&f)
	return f, err
}

// txLock: the embedded queue's one connection and immediate transactions
// already serialise writers.
func (d sqliteDB) txLock(context.Context, *sql.Tx) error      { return nil }
func (d sqliteDB) commit(_ context.Context, tx *sql.Tx) error { return tx.Commit() }
func (d sqliteDB) rollback(_ context.Context, tx *sql.Tx)     { _ = tx.Rollback() }
func (d sqliteDB) exec(ctx context.Context, q string, args ...any) (int64, error) {
	r, err := d.db.ExecContext(ctx, lite(q), args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
func (d sqliteDB) queryString(ctx context.Context, q string, args ...any) (string, error) {
	var s string
	err := d.db.QueryRowContext(ctx, lite(q), args...).Scan(&s)
	return s, err
}
func (d sqliteDB) ping(ctx context.Context) error { return d.db.PingContext(ctx) }
func (d sqliteDB) close()                         { d.db.Close() }

// pgDB is a PostgreSQL queue's pool.
type pgDB struct{ pool *pgxpool.Pool }

func (d pgDB) begin(ctx context.Context) (pgx.Tx, error) { return d.pool.Begin(ctx) }
func (d pgDB) txExec(ctx context.Context, tx pgx.Tx, q string, args ...any) (int64, error) {
	t, err := tx.Exec(ctx, q, args...)
	return t.RowsAffected(), err
}
func (d pgDB) txQueryFloat(ctx context.Context, tx pgx.Tx, q string, args ...any) (float64, error) {
	var f float64
	err := tx.QueryRow(ctx, q, args...).Scan(&f)
	return f, err
}

func (d pgDB) txLock(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7231002)")
	return err
}
func (d pgDB) commit(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }
func (d pgDB) rollback(ctx context.Context, tx pgx.Tx) {
	_ = tx.Rollback(context.WithoutCancel(ctx))
}
func (d pgDB) exec(ctx context.Context, q string, args ...any) (int64, error) {
	t, err := d.pool.Exec(ctx, q, args...)
	return t.RowsAffected(), err
}
func (d pgDB) queryString(ctx context.Context, q string, args ...any) (string, error) {
	var s string
	err := d.pool.QueryRow(ctx, q, args...).Scan(&s)
	return s, err
}
func (d pgDB) ping(ctx context.Context) error { return d.pool.Ping(ctx) }
func (d pgDB) close()                         { d.pool.Close() }
