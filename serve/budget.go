package serve

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// The hourly and daily cost budget.
//
// DESIGN: every attempt that may use the model first reserves its worst
// case (model.max_cost, which a cost cap requires when a model is
// configured) in relay_cost, a table in the queue's database, so processes
// sharing a PostgreSQL queue share one budget; the reservation is made in
// one transaction with the sums of the last hour and day (under an
// advisory lock on PostgreSQL; the embedded queue's single connection
// serialises it), and refused when either cap would be passed. When the
// attempt ends, done or failed, its row is set to what it cost (0 when it
// failed before the model ran; a failed model run's usage comes with its
// error). Only an attempt whose process dies keeps its reservation, which
// errs on the side of the budget. A job refused waits in the queue, and
// its issue's comment says until when.

const createBudgetTableSQL = `
CREATE TABLE IF NOT EXISTS relay_cost (
	job_id  BIGINT NOT NULL,
	attempt INTEGER NOT NULL,
	at_unix BIGINT NOT NULL,
	cost    DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (job_id, attempt)
)`

// Budget caps the model cost of all jobs in any hour and any day (0: no
// cap); Reserve is the worst case of one attempt.
type Budget struct {
	PerHour, PerDay, Reserve float64
}

// txOps are the statements a budget transaction runs.
type txOps interface {
	exec(q string, args ...any) error
	queryFloat(q string, args ...any) (float64, error)
}

// ReserveCost reserves b.Reserve for one attempt of a job when the last
// hour's and day's costs leave room for it; otherwise it returns false and
// when to try again.
func (q *Queue) ReserveCost(ctx context.Context, jobID int64, attempt int, b Budget, now time.Time) (ok bool, retry time.Time, err error) {
	ok, retry, _, err = q.reserveCost(ctx, jobID, attempt, b, now)
	return ok, retry, err
}

// reserveCost is ReserveCost that also names the window ("hourly" or
// "daily") that refused.
func (q *Queue) reserveCost(ctx context.Context, jobID int64, attempt int, b Budget, now time.Time) (ok bool, retry time.Time, window string, err error) {
	if b.PerHour <= 0 && b.PerDay <= 0 {
		return true, time.Time{}, "", nil
	}
	windows := []struct {
		cap  float64
		d    time.Duration
		name string
	}{{b.PerHour, time.Hour, "hourly"}, {b.PerDay, 24 * time.Hour, "daily"}}
	err = q.b.inTx(ctx, true, func(t txOps) error {
		for _, w := range windows {
			if w.cap <= 0 {
				continue
			}
			since := now.Add(-w.d).Unix()
			spent, err := t.queryFloat(`SELECT CAST(coalesce(sum(cost), 0) AS DOUBLE PRECISION) FROM relay_cost WHERE at_unix > $1`, since)
			if err != nil {
				return err
			}
			if spent > 0 && spent+b.Reserve > w.cap {
				// Room comes back as the oldest cost in the window ages out.
				oldest, err := t.queryFloat(`SELECT CAST(coalesce(min(at_unix), 0) AS DOUBLE PRECISION) FROM relay_cost WHERE at_unix > $1`, since)
				if err != nil {
					return err
				}
				retry, window = time.Unix(int64(oldest), 0).Add(w.d+time.Second), w.name
				return nil
			}
		}
		ok = true
		return t.exec(`INSERT INTO relay_cost (job_id, attempt, at_unix, cost) VALUES ($1, $2, $3, $4)
			ON CONFLICT (job_id, attempt) DO UPDATE SET at_unix = excluded.at_unix, cost = excluded.cost`, jobID, attempt, now.Unix(), b.Reserve)
	})
	if err != nil {
		return false, time.Time{}, "", fmt.Errorf("reserve the cost budget: %w", err)
	}
	return ok, retry, window, nil
}

// SettleCost sets an attempt's reservation to what it cost.
func (q *Queue) SettleCost(ctx context.Context, jobID int64, attempt int, cost float64) error {
	if _, err := q.b.exec(ctx, `UPDATE relay_cost SET cost = $1 WHERE job_id = $2 AND attempt = $3`, cost, jobID, attempt); err != nil {
		return fmt.Errorf("record the job's cost: %w", err)
	}
	return nil
}

// settle replaces an attempt's reservation by what it cost, *cost, once
// the attempt ends (run defers it).
func (w *Worker) settle(ctx context.Context, job *river.Job[ScopeArgs], b Budget, cost *float64, log *slog.Logger) {
	if b.PerHour <= 0 && b.PerDay <= 0 {
		return
	}
	if err := w.queue.SettleCost(context.WithoutCancel(ctx), job.ID, job.Attempt, *cost); err != nil {
		log.Warn("record the job's cost; its reservation stands", "err", err)
	}
}

// budgetNoteHead starts the note of a job waiting for the cost budget.
const budgetNoteHead = "⏳ **relay is waiting"

// postDeferred says on the issue, in its one comment, that the job waits
// for the budget and until when; a last report stays above the note.
func (w *Worker) postDeferred(ctx context.Context, job *river.Job[ScopeArgs], over *overBudget, log *slog.Logger) {
	tr := w.trackers[job.Args.Ref.Source]
	if tr == nil {
		return
	}
	layout := "15:04"
	if time.Until(over.retry) > 20*time.Hour {
		layout = "Jan 2 15:04" // the daily window: say which day
	}
	note := fmt.Sprintf(budgetNoteHead+" for the %s model budget**; it will run by %s UTC.", over.window, over.retry.UTC().Format(layout))
	last, err := w.lastReports().load(ctx, job.Args.Ref.Key())
	if err != nil {
		log.Warn("the budget note replaces the last report", "err", err)
	}
	if _, err := tr.UpsertReport(ctx, job.Args.Ref, below(last, note)); err != nil {
		log.Warn("post the budget note on the issue", "err", err)
	}
}

// forgetCosts drops costs older than the day window.
func (q *Queue) forgetCosts(ctx context.Context, now time.Time) error {
	_, err := q.b.exec(ctx, `DELETE FROM relay_cost WHERE at_unix < $1`, now.Add(-25*time.Hour).Unix())
	return err
}
