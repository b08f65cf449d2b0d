package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
)

// sleeps records the backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func realClient(srv *agenttest.Server) *openai.Client {
	cfg := openai.DefaultConfig("test")
	cfg.BaseURL = srv.URL() + "/v1"
	return openai.NewClientWithConfig(cfg)
}

func TestRetryClient(t *testing.T) {
	t.Parallel()
	ok := agenttest.OK(agenttest.Text("hello"))
	tests := []struct {
		name      string
		replies   []agenttest.Reply
		attempts  int
		wantReqs  int
		wantSleep []time.Duration
		wantErr   string // substring; "" means success
		wantCode  int
	}{
		{
			name:      "429 then success honours Retry-After",
			replies:   []agenttest.Reply{{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"error":{"message":"slow down","type":"rate_limit"}}`}, ok},
			wantReqs:  2,
			wantSleep: []time.Duration{7 * time.Second},
		},
		{
			name:      "retry-after-ms wins",
			replies:   []agenttest.Reply{{Status: 429, Header: map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, Body: `{"error":{"message":"slow down"}}`}, ok},
			wantReqs:  2,
			wantSleep: []time.Duration{250 * time.Millisecond},
		},
		{
			name:      "Retry-After capped",
			replies:   []agenttest.Reply{{Status: 503, Header: map[string]string{"Retry-After": "3600"}, Body: `{"error":{"message":"busy"}}`}, ok},
			wantReqs:  2,
			wantSleep: []time.Duration{2 * time.Minute},
		},
		{
			name:      "500s exhausted",
			replies:   []agenttest.Reply{agenttest.Error(500, "boom"), agenttest.Error(502, "boom"), agenttest.Error(500, "boom")},
			attempts:  3,
			wantReqs:  3,
			wantSleep: []time.Duration{75 * time.Millisecond, 150 * time.Millisecond}, // jitter fixed at 0.5: window/2 + window/4
			wantErr:   "giving up after 3 attempts",
			wantCode:  500,
		},
		{
			name:     "non-JSON 5xx body is retried too",
			replies:  []agenttest.Reply{{Status: 502, Body: "<html>bad gateway</html>"}, ok},
			wantReqs: 2, wantSleep: []time.Duration{75 * time.Millisecond},
		},
		{
			name:     "400 is not retried",
			replies:  []agenttest.Reply{agenttest.Error(400, "bad request"), ok},
			wantReqs: 1,
			wantErr:  "bad request",
			wantCode: 400,
		},
		{
			name:     "401 is not retried",
			replies:  []agenttest.Reply{agenttest.Error(401, "invalid api key"), ok},
			wantReqs: 1,
			wantErr:  "invalid api key",
			wantCode: 401,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := agenttest.NewServer(func(_ openai.ChatCompletionRequest, n int) agenttest.Reply {
				if n > len(tc.replies) {
					return agenttest.Error(500, "script exhausted")
				}
				return tc.replies[n-1]
			})
			t.Cleanup(srv.Close)
			var s sleeps
			c := agent.NewRetryClient(realClient(srv), agent.RetryOptions{
				MaxAttempts: tc.attempts, BaseDelay: 100 * time.Millisecond, Sleep: s.sleep, Jitter: func() float64 { return 0.5 },
			})
			resp, err := c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := resp.Choices[0].Message.Content; got != "hello" {
					t.Errorf("content = %q", got)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if got := agent.StatusCode(err); got != tc.wantCode {
					t.Errorf("StatusCode = %d, want %d", got, tc.wantCode)
				}
			}
			if got := len(srv.Requests()); got != tc.wantReqs {
				t.Errorf("server saw %d requests, want %d", got, tc.wantReqs)
			}
			if diff := cmp.Diff(tc.wantSleep, s.d); diff != "" {
				t.Errorf("backoff waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryClientStopsOnCancel(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(func(openai.ChatCompletionRequest, int) agenttest.Reply { return agenttest.Error(503, "busy") })
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(t.Context())
	c := agent.NewRetryClient(realClient(srv), agent.RetryOptions{MaxAttempts: 10, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	_, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("server saw %d requests after cancel, want 1", got)
	}
}

func TestRetryClientTimeout(t *testing.T) {
	t.Parallel()
	// The first answer is slower than the HTTP client's timeout; the retry
	// gets a prompt answer.
	srv := agenttest.NewServer(func(_ openai.ChatCompletionRequest, n int) agenttest.Reply {
		if n == 1 {
			return agenttest.Reply{Delay: 2 * time.Second, Completion: agenttest.Text("late")}
		}
		return agenttest.OK(agenttest.Text("on time"))
	})
	t.Cleanup(srv.Close)
	oc := agent.NewOpenAIClient(srv.URL()+"/v1", "test", &http.Client{Timeout: 100 * time.Millisecond})
	var s sleeps
	c := agent.NewRetryClient(oc, agent.RetryOptions{Sleep: s.sleep})
	resp, err := c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != "on time" || len(s.d) != 1 {
		t.Errorf("content = %q after %d retries, want %q after 1", got, len(s.d), "on time")
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want bool
	}{
		{&openai.APIError{HTTPStatusCode: 429}, true},
		{&openai.APIError{HTTPStatusCode: 500}, true},
		{&openai.APIError{HTTPStatusCode: 503}, true},
		{&openai.RequestError{HTTPStatusCode: 502}, true},
		{&openai.APIError{HTTPStatusCode: 400}, false},
		{&openai.APIError{HTTPStatusCode: 404}, false},
		{fmt.Errorf("wrapped: %w", &openai.APIError{HTTPStatusCode: 429}), true},
		{context.Canceled, false},
		{errors.New("connection refused"), false},
	}
	for _, tc := range tests {
		if got := agent.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
