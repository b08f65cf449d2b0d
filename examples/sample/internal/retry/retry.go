// Package retry runs an operation again after transient failures.
package retry

import (
	"context"
	"time"
)

// Policy says how often and how long to retry.
type Policy struct {
	Attempts int
	Backoff  time.Duration
	// Retryable decides whether an error is worth another attempt; nil
	// retries every error.
	Retryable func(error) bool
}

// Do runs op until it succeeds, the attempts are used up, or ctx ends.
func Do(ctx context.Context, p Policy, op func() error) error {
	attempts := p.Attempts
	if attempts < 1 {
		attempts = 1
	}
	var err error
	for i := 0; i < attempts; i++ {
		if err = op(); err == nil {
			return nil
		}
		if p.Retryable != nil && !p.Retryable(err) {
			return err
		}
		if i < attempts-1 {
			if werr := wait(ctx, p.Backoff<<i); werr != nil {
				return werr
			}
		}
	}
	return err
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
