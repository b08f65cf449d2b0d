package redact_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/internal/redact"
)

func TestURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
	}{
		{"password", "https://user:secret@host/v1", "https://user:***@host/v1"},
		{"escaped password", "https://user:p%40ss%2Fword@host:8443/v1", "https://user:***@host:8443/v1"},
		{"password with colons", "arangodb://u:p:q@h/db", "arangodb://u:***@h/db"},
		{"lone token as user", "https://ghp_abcdef0123456789@github.com/o/r.git", "https://***@github.com/o/r.git"},
		{"secret query values", "https://host/v1?api-version=2024-02-01&api_key=sk-123&sig=abc", "https://host/v1?api-version=2024-02-01&api_key=***&sig=***"},
		{"token query", "http://h/x?access_token=t0k", "http://h/x?access_token=***"},
		{"nothing secret", "http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"no user, harmless query", "https://h/v1?api-version=1", "https://h/v1?api-version=1"},
		{"not a URL", "notify/sms.go:12", "notify/sms.go:12"},
		{"empty", "", ""},
		{"does not parse", "https://user:pa ss@h%zz/v1", "https://user:***@h%zz/v1"},
		{"does not parse, no user", "http://h%zz/v1?key=1", "http://h%zz/v1?***"},
		{"path with @", "https://host/v1/models/a@b", "https://host/v1/models/a@b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := redact.URL(tc.raw); got != tc.want {
				t.Errorf("URL(%q) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"url.Error", `Post "https://bob:hunter2@api.example.com/v1/chat/completions": dial tcp: lookup api.example.com: no such host`,
			`Post "https://bob:***@api.example.com/v1/chat/completions": dial tcp: lookup api.example.com: no such host`},
		{"two urls", "from http://a:1@x/ to https://tok@y/?key=2.", "from http://a:***@x/ to https://***@y/?key=***."},
		{"url then colon", "queue postgres://relay:pw@127.0.0.1:55439/relay?sslmode=disable: failed to connect",
			"queue postgres://relay:***@127.0.0.1:55439/relay?sslmode=disable: failed to connect"},
		{"masked url then colon", "queue postgres://relay:***@h/relay?sslmode=disable: failed",
			"queue postgres://relay:***@h/relay?sslmode=disable: failed"},
		{"hint", "cannot reach the model endpoint https://u:pw@h/v1: check", "cannot reach the model endpoint https://u:***@h/v1: check"},
		{"plain", "no URL here: 3 of 4", "no URL here: 3 of 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := redact.Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestErrorFromHTTPClient redacts the error net/http returns (a *url.Error
// naming the URL), and keeps the chain usable for errors.As/Is.
func TestErrorFromHTTPClient(t *testing.T) {
	t.Parallel()
	c := &http.Client{Timeout: 5 * time.Second}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://tok3n@127.0.0.1:1/v1?api_key=sk-live", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(req)
	if err == nil {
		t.Fatal("request to port 1 succeeded")
	}
	red := redact.Error(fmt.Errorf("call model: %w", err))
	for _, secret := range []string{"tok3n", "sk-live"} {
		if strings.Contains(red.Error(), secret) {
			t.Errorf("redacted error leaks %q: %v", secret, red)
		}
	}
	var ue *url.Error
	if !errors.As(red, &ue) {
		t.Errorf("errors.As(*url.Error) fails on the redacted error %v", red)
	}
	if redact.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	plain := errors.New("no url")
	if redact.Error(plain) != plain {
		t.Error("an error without a URL was wrapped")
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(redact.Handler(slog.NewJSONHandler(&buf, nil))).With("endpoint", "https://u:with-attrs@h/v1")
	log.Info("calling https://u:in-message@h/v1", "err", errors.New(`Post "https://u:in-error@h/v1": EOF`),
		"url", "https://u:in-string@h/v1", slog.Group("g", "u", "https://u:in-group@h/v1"), "n", 3)
	log.Log(context.Background(), slog.LevelWarn, "second", "any", struct{ URL string }{"https://u:in-any@h/v1"})
	out := buf.String()
	for _, secret := range []string{"with-attrs", "in-message", "in-error", "in-string", "in-group", "in-any"} {
		if strings.Contains(out, secret) {
			t.Errorf("log leaks %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, `"n":3`) || !strings.Contains(out, "u:***@h/v1") {
		t.Errorf("log lost its other attributes:\n%s", out)
	}
}
