package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// Taking back the jobs of a dead process.
//
// DESIGN: River rescues a running job only once rescue_after (longer than
// the job timeout, 35 minutes by default) has passed, and meanwhile every
// trigger for its issue joins it. relay knows sooner that the job's process
// is gone:
//
//   - The embedded queue belongs to one process (the state directory's
//     lock), so on start every job still marked running belongs to a
//     previous process that died: all of them go back to available before
//     the workers start.
//   - On PostgreSQL each worker process has a River client id of its own and
//     writes a heartbeat row (relay_worker) every `heartbeat`. A running
//     job's last attempted_by entry names its process; a job whose process
//     has not beaten for 3 heartbeats (and that started before that) goes
//     back to available. Every worker process runs this check each
//     heartbeat, and the webhook runs it when a trigger joins a running job,
//     so that trigger is not left with a dead job.
//
// A job taken back keeps its attempt count, so one that kills its process
// every time ends after max_attempts (discarded) instead of looping.

const createWorkerTableSQL = `
CREATE TABLE IF NOT EXISTS relay_worker (
	client_id    TEXT PRIMARY KEY,
	heartbeat_at TIMESTAMPTZ NOT NULL
)`

// newClientID names one process's River client.
func newClientID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("relay-%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// reclaimSQLite makes every running job available again: only the process
// holding the state directory's lock runs this, so they are all orphans.
const reclaimSQLite = `UPDATE river_job SET
	state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'available' END,
	scheduled_at = datetime('now', 'subsec'),
	finalized_at = CASE WHEN attempt >= max_attempts THEN datetime('now', 'subsec') END
WHERE state = 'running' AND kind = $1`

const reclaimPostgres = `UPDATE river_job SET
	state = (CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'available' END)::river_job_state,
	scheduled_at = now(),
	finalized_at = CASE WHEN attempt >= max_attempts THEN now() END
WHERE state = 'running' AND kind = $1
	AND attempted_at < now() - make_interval(secs => $2)
	AND NOT EXISTS (
		SELECT 1 FROM relay_worker w
		WHERE w.client_id = river_job.attempted_by[array_upper(river_job.attempted_by, 1)]
			AND w.heartbeat_at > now() - make_interval(secs => $2))`

// Reclaim takes back the running jobs of dead processes (see the DESIGN
// note above) and returns how many. dead is how long a PostgreSQL worker
// may stay silent; the embedded queue ignores it.
func (q *Queue) Reclaim(ctx context.Context, dead time.Duration) (int64, error) {
	var n int64
	var err error
	if q.Backend == "sqlite" {
		n, err = q.b.exec(ctx, reclaimSQLite, JobKind)
	} else {
		n, err = q.b.exec(ctx, reclaimPostgres, JobKind, dead.Seconds())
	}
	if err != nil {
		return 0, fmt.Errorf("take back the jobs of dead workers: %w", err)
	}
	return n, nil
}

// Beat records that this process's workers are alive (PostgreSQL).
func (q *Queue) Beat(ctx context.Context) error {
	if q.Backend != "postgres" {
		return nil
	}
	_, err := q.b.exec(ctx, `INSERT INTO relay_worker (client_id, heartbeat_at) VALUES ($1, now())
		ON CONFLICT (client_id) DO UPDATE SET heartbeat_at = now()`, q.clientID)
	if err != nil {
		return fmt.Errorf("worker heartbeat: %w", err)
	}
	return nil
}

// forgetWorker removes this process's heartbeat row on a clean stop, and
// rows of processes silent for a day.
func (q *Queue) forgetWorker(ctx context.Context) {
	if q.Backend != "postgres" {
		return
	}
	q.b.exec(ctx, `DELETE FROM relay_worker WHERE client_id = $1 OR heartbeat_at < now() - interval '1 day'`, q.clientID)
}

// heartbeatLoop beats and takes back dead workers' jobs every interval
// until ctx ends.
func (s *Service) heartbeatLoop(ctx context.Context) {
	every := s.cfg.Heartbeat
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := s.queue.Beat(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("worker heartbeat", "err", err)
		}
		s.reclaim(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reclaim takes back dead workers' jobs and logs how many.
func (s *Service) reclaim(ctx context.Context) {
	n, err := s.queue.Reclaim(ctx, 3*s.cfg.Heartbeat)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("take back dead workers' jobs", "err", err)
	case n > 0:
		s.metrics.JobsReclaimed.Add(float64(n))
		s.log.Warn("took back the running jobs of a dead worker process", "count", n, "queue", s.queue.Backend)
	}
}

// Active reports whether a job for the issue key is queued or running: a
// trigger for it joins that job rather than starting one.
func (q *Queue) Active(ctx context.Context, key string) (bool, error) {
	query := `SELECT CAST(count(*) AS TEXT) FROM river_job WHERE kind = $1 AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled') AND args->>'key' = $2`
	if q.Backend == "sqlite" {
		query = `SELECT CAST(count(*) AS TEXT) FROM river_job WHERE kind = $1 AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled') AND json_extract(args, '$.key') = $2`
	}
	n, err := q.b.queryString(ctx, query, JobKind, key)
	if err != nil {
		return false, fmt.Errorf("look up the issue's job: %w", err)
	}
	return n != "0", nil
}

// Seen reports whether a delivery id was accepted before: its redelivery is
// answered as a duplicate, whatever the rate limits say.
func (q *Queue) Seen(ctx context.Context, source, deliveryID string) (bool, error) {
	if deliveryID == "" {
		return false, nil
	}
	n, err := q.b.queryString(ctx, `SELECT CAST(count(*) AS TEXT) FROM relay_delivery WHERE source = $1 AND delivery_id = $2`, source, deliveryID)
	if err != nil {
		return false, fmt.Errorf("look up the delivery: %w", err)
	}
	return n != "0", nil
}
