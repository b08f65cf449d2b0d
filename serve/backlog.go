package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

// ErrNoRef is the error of a ticket that names no issue: a backlog on the
// queue needs each ticket's ref.
var ErrNoRef = errors.New("no ref")

// TicketError is a ticket of a backlog whose issue cannot be enqueued:
// ErrNoRef, or the ref's parse error.
type TicketError struct {
	ID  string
	Err error
}

func (e *TicketError) Error() string { return fmt.Sprintf("ticket %q: %v", e.ID, e.Err) }
func (e *TicketError) Unwrap() error { return e.Err }

// EnqueueBacklog puts a scope job for each ticket's issue (its ref) on
// the queue at o, at most maxAttempts attempts each, as a manual trigger
// by actor; a ticket whose issue has a job queued or running already joins
// it. Every ref is parsed before the queue is opened (a *TicketError);
// each is told of every job as it is enqueued. Nothing is scoped here: the
// queue's workers run the jobs and post the reports.
func EnqueueBacklog(ctx context.Context, o QueueOptions, tickets []workspace.Ticket, maxAttempts int, actor string, each func(workspace.Ticket, tracker.Ref, Enqueued)) error {
	refs := make([]tracker.Ref, len(tickets))
	for i, t := range tickets {
		if t.Ref == "" {
			return &TicketError{ID: t.ID, Err: ErrNoRef}
		}
		var err error
		if refs[i], err = tracker.ParseRef(t.Ref); err != nil {
			return &TicketError{ID: t.ID, Err: err}
		}
	}
	q, err := OpenQueue(ctx, o)
	if err != nil {
		return err
	}
	defer q.Close()
	for i, t := range tickets {
		e, err := q.Enqueue(ctx, tracker.Trigger{Ref: refs[i], Event: "batch", Reason: tracker.ReasonManual, Actor: actor}, maxAttempts)
		if err != nil {
			return fmt.Errorf("ticket %q: %w (%d tickets were enqueued before it; re-running is safe: queued ones are joined)", t.ID, err, i)
		}
		each(t, refs[i], e)
	}
	return nil
}
