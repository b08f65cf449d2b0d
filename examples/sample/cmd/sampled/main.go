// Command sampled runs the sample notification server.
package main

import (
	"context"
	"log"
	"time"

	"example.com/sample/api"
	"example.com/sample/internal/retry"
	"example.com/sample/notify"
	"example.com/sample/store"
)

type logTransport struct{}

func (logTransport) Deliver(_ context.Context, from, to string, body []byte) error {
	log.Printf("mail %s -> %s (%d bytes)", from, to, len(body))
	return nil
}

type logGateway struct{}

func (logGateway) Submit(_ context.Context, number, text string) (string, error) {
	log.Printf("sms -> %s: %s", number, text)
	return "local", nil
}

func main() {
	users := store.NewCachedReader(store.NewMemory())
	svc := notify.NewService(retry.Policy{Attempts: 3, Backoff: 100 * time.Millisecond},
		&notify.EmailSender{From: "noreply@example.com", Transport: logTransport{}},
		&notify.SMSSender{Gateway: logGateway{}, MaxLen: 160},
	)
	srv := api.NewServer(":8080", users, svc)
	log.Fatal(srv.ListenAndServe())
}
