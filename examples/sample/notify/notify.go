// Package notify delivers messages to users over email and SMS.
package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"example.com/sample/internal/retry"
)

// ErrInvalidRecipient is returned when a message has no usable address.
var ErrInvalidRecipient = errors.New("notify: invalid recipient")

// Message is one notification to deliver.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Sender delivers a message over one channel.
type Sender interface {
	Send(ctx context.Context, m Message) error
	Channel() string
}

// Service routes messages to the right sender and retries transient failures.
type Service struct {
	senders map[string]Sender
	policy  retry.Policy
	log     []string
}

// NewService returns a Service that knows the given senders.
func NewService(policy retry.Policy, senders ...Sender) *Service {
	s := &Service{senders: map[string]Sender{}, policy: policy}
	for _, snd := range senders {
		s.senders[snd.Channel()] = snd
	}
	return s
}

// Send delivers m on the channel its recipient implies: an address with "@"
// goes by email, a number starting with "+" by SMS.
func (s *Service) Send(ctx context.Context, m Message) error {
	ch, err := channelFor(m.To)
	if err != nil {
		return err
	}
	snd, ok := s.senders[ch]
	if !ok {
		return fmt.Errorf("notify: no sender for channel %q", ch)
	}
	err = retry.Do(ctx, s.policy, func() error { return snd.Send(ctx, m) })
	s.record(ch, m, err)
	return err
}

// Broadcast sends m to every recipient and returns the first error.
func (s *Service) Broadcast(ctx context.Context, to []string, m Message) error {
	var first error
	for _, r := range to {
		m.To = r
		if err := s.Send(ctx, m); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// History returns what the service has sent, oldest first.
func (s *Service) History() []string { return append([]string(nil), s.log...) }

func (s *Service) record(ch string, m Message, err error) {
	status := "ok"
	if err != nil {
		status = "error: " + err.Error()
	}
	s.log = append(s.log, fmt.Sprintf("%s %s %s", ch, m.To, status))
}

func channelFor(to string) (string, error) {
	switch {
	case strings.Contains(to, "@"):
		return "email", nil
	case strings.HasPrefix(to, "+"):
		return "sms", nil
	}
	return "", fmt.Errorf("%w: %q", ErrInvalidRecipient, to)
}
