package notify

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTimeout is returned by a Gateway that did not answer in time. The
// message may or may not have been delivered.
var ErrTimeout = errors.New("sms gateway timeout")

// Gateway is an SMS provider's API.
type Gateway interface {
	Submit(ctx context.Context, number, text string) (id string, err error)
}

// SMSSender sends messages through an SMS Gateway, truncating long bodies.
type SMSSender struct {
	Gateway Gateway
	Timeout time.Duration
	MaxLen  int
}

// Channel implements Sender.
func (s *SMSSender) Channel() string { return "sms" }

// Send implements Sender.
func (s *SMSSender) Send(ctx context.Context, m Message) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	text := truncate(m.Body, s.MaxLen)
	if _, err := s.Gateway.Submit(ctx, m.To, text); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: %v", ErrTimeout, err)
		}
		return err
	}
	return nil
}

func (s *SMSSender) timeout() time.Duration {
	if s.Timeout <= 0 {
		return 5 * time.Second
	}
	return s.Timeout
}

func truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	return s[:n]
}
