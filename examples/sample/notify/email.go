package notify

import (
	"context"
	"fmt"
	"net/mail"
)

// Transport is the low-level mail connection an EmailSender writes to.
type Transport interface {
	Deliver(ctx context.Context, from, to string, body []byte) error
}

// EmailSender sends messages through a mail Transport.
type EmailSender struct {
	From      string
	Transport Transport
}

// Channel implements Sender.
func (e *EmailSender) Channel() string { return "email" }

// Send implements Sender. It validates the address and renders headers.
func (e *EmailSender) Send(ctx context.Context, m Message) error {
	addr, err := mail.ParseAddress(m.To)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidRecipient, err)
	}
	return e.Transport.Deliver(ctx, e.From, addr.Address, render(e.From, addr.Address, m))
}

func render(from, to string, m Message) []byte {
	return []byte(fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\n\r\n%s", from, to, m.Subject, m.Body))
}
