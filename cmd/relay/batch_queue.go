package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

// enqueueBatch puts every ticket of a backlog on relay serve's shared
// queue as a scope job for its issue (the ticket's ref). Nothing is scoped
// here; relay serve workers run the jobs and post the reports.
func enqueueBatch(ctx context.Context, g *globals, in, queue, outDir string, maxAttempts int) error {
	switch {
	case in == "":
		return usageErr(errors.New("batch --queue needs --in FILE (.jsonl or .csv) with a ref per ticket"))
	case outDir != "":
		return usageErr(errors.New("batch --queue posts the reports on the issues; drop --out"))
	case maxAttempts < 1:
		return usageErr(fmt.Errorf("--max-attempts %d: want at least 1", maxAttempts))
	}
	if err := serve.CheckQueueURL(queue); err != nil {
		return usageErr(fmt.Errorf("--queue %q: %w, the queue relay serve --queue uses (the embedded queue belongs to one relay serve process)", serve.Redact(queue), err))
	}
	tickets, err := readTickets(in)
	if err != nil {
		return err
	}
	var queued, joined int
	err = serve.EnqueueBacklog(ctx, serve.QueueOptions{URL: queue, Log: g.log}, tickets, maxAttempts, "relay batch",
		func(t workspace.Ticket, ref tracker.Ref, e serve.Enqueued) {
			state := "queued"
			if e.Coalesced {
				state, joined = "joined the queued job", joined+1
			} else {
				queued++
			}
			fmt.Fprintf(g.stdout, "%s\t%s\tjob %d %s\n", t.ID, ref.Key(), e.JobID, state)
		})
	var te *serve.TicketError
	switch {
	case errors.As(err, &te) && errors.Is(err, serve.ErrNoRef):
		return fmt.Errorf("%s: ticket %q has no ref; batch --queue needs each ticket's issue, e.g. \"ref\": \"github:acme/shop#42\" or \"jira:SHOP-7\"", in, te.ID)
	case te != nil:
		return fmt.Errorf("%s: %w", in, err)
	case err != nil:
		return err
	}
	fmt.Fprintf(g.stdout, "%d tickets: %d queued, %d joined a job already queued or running\n", len(tickets), queued, joined)
	return nil
}
