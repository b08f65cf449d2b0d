package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/internal/redact"
)

// Outcome is one ticket's scoping report, as a Batch writes it.
type Outcome struct {
	Markdown string
	JSON     []byte
	Tokens   int64
	Stopped  string // why the run stopped early, or ""
}

// TicketResult is what a Batch did with one ticket.
type TicketResult struct {
	ID      string
	Status  string // done, stopped (done, but the budget or a deadline cut it short), skipped, failed, cancelled
	Tokens  int64
	Elapsed time.Duration
}

// Batch scopes a backlog into Dir: each ticket gets <id>.md and <id>.json
// (the JSON last: the pair marks the ticket finished, so a second run
// skips it and an interrupted batch resumes), a failing one <id>.error
// without stopping the others.
type Batch struct {
	Dir         string
	Concurrency int
	// Scope writes one ticket's report. An error that Fatal says ends
	// the whole batch (nothing could be scoped) is returned by Run.
	Scope func(ctx context.Context, t Ticket) (Outcome, error)
	Fatal func(error) bool
	// WriteFile writes a report file whole (atomically).
	WriteFile func(path string, b []byte) error
	// Logf receives one progress line per event, without "batch: ".
	Logf func(format string, args ...any)

	mu sync.Mutex // serialises progress lines
}

// Run scopes the tickets, Concurrency at once; the results are in the
// tickets' order. An interrupted batch says how to resume.
func (b *Batch) Run(ctx context.Context, tickets []Ticket) ([]TicketResult, error) {
	results := make([]TicketResult, len(tickets))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.Concurrency)
	for i, t := range tickets {
		results[i] = TicketResult{ID: t.ID, Status: "cancelled"}
		if b.finished(t.ID) {
			results[i].Status = "skipped"
			continue
		}
		if gctx.Err() != nil {
			continue
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			var err error
			results[i], err = b.one(gctx, t)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return results, err
	}
	if err := ctx.Err(); err != nil {
		return results, fmt.Errorf("batch interrupted; re-run the same command to resume: %w", err)
	}
	return results, nil
}

// finished reports whether a ticket already has both report files.
func (b *Batch) finished(id string) bool {
	for _, ext := range []string{".md", ".json"} {
		if _, err := os.Stat(filepath.Join(b.Dir, id+ext)); err != nil {
			return false
		}
	}
	return true
}

// one scopes a ticket. Its error is not the ticket's but the batch's
// (Fatal).
func (b *Batch) one(ctx context.Context, t Ticket) (TicketResult, error) {
	start := time.Now()
	b.logf("%s: scoping", t.ID)
	res := TicketResult{ID: t.ID}
	out, err := b.Scope(ctx, t)
	if err == nil {
		// JSON last: the pair of files marks the ticket finished.
		err = errors.Join(b.WriteFile(filepath.Join(b.Dir, t.ID+".md"), []byte(out.Markdown+"\n")),
			b.WriteFile(filepath.Join(b.Dir, t.ID+".json"), out.JSON))
	}
	res.Elapsed, res.Tokens = time.Since(start), out.Tokens
	switch {
	case err != nil && b.Fatal != nil && b.Fatal(err):
		res.Status = "cancelled"
		return res, err
	case err != nil && ctx.Err() != nil:
		res.Status = "cancelled"
		b.logf("%s: cancelled", t.ID)
	case err != nil:
		res.Status = "failed"
		b.logf("%s: failed: %v", t.ID, err)
		if werr := b.WriteFile(filepath.Join(b.Dir, t.ID+".error"), []byte(redact.Text(err.Error())+"\n")); werr != nil {
			b.logf("%s: %v", t.ID, werr)
		}
	default:
		res.Status = "done"
		if out.Stopped != "" {
			res.Status = "stopped"
		}
		os.Remove(filepath.Join(b.Dir, t.ID+".error"))
		b.logf("%s: %s (%d tokens, %s)", t.ID, res.Status, res.Tokens, res.Elapsed.Round(time.Millisecond))
	}
	return res, nil
}

func (b *Batch) logf(format string, args ...any) {
	if b.Logf == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.Logf(format, args...)
}
