package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StopGrace is how long ServeWithGrace, once its context has ended (SIGTERM,
// Ctrl-C), waits for the connection to close. An answer stuck behind a
// client that does not read would otherwise hold the process for as long
// as the client lives: a blocked write to a pipe cannot be interrupted.
const StopGrace = 5 * time.Second

// ServeWithGrace is Serve, except that once ctx has ended it waits at most
// grace for the connection to close, then gives up with an error saying
// that answers are left unwritten.
func ServeWithGrace(ctx context.Context, srv *mcp.Server, t *Transport, grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, t) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(grace):
			return fmt.Errorf("mcp: stopped %s after the signal with answers unwritten: the client is not reading relay's output", grace)
		}
	}
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
