package agent

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/redact"
)

// ChatClient is the LLM seam: one chat completion. *openai.Client satisfies
// it unchanged, and so does any OpenAI-compatible endpoint reached through
// it (OpenAI, Azure, vLLM, Ollama, llama.cpp server, OpenRouter).
// Implementations must be safe for concurrent use.
type ChatClient interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// NewOpenAIClient returns a go-openai client for an OpenAI-compatible
// endpoint. baseURL "" means api.openai.com; httpClient nil means one with a
// timeout per request of 3 minutes. The client reads at most MaxReplyBytes
// of a reply, and a successful reply that is not JSON (an HTML page: the
// base URL points at a web server) fails with a [*ReplyError] saying so.
// httpClient itself is not changed.
func NewOpenAIClient(baseURL, apiKey string, httpClient *http.Client) *openai.Client {
	cfg := openai.DefaultConfig(apiKey)
	if baseURL != "" {
		cfg.BaseURL = strings.TrimRight(baseURL, "/")
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 3 * time.Minute}
	}
	guarded := *httpClient
	next := guarded.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	guarded.Transport = guardTransport{next: next, max: MaxReplyBytes}
	cfg.HTTPClient = &guarded
	return openai.NewClientWithConfig(cfg)
}

// RetryOptions configure [NewRetryClient]. Zero fields take the defaults
// noted on each.
type RetryOptions struct {
	MaxAttempts   int           // attempts in all, including the first; default 4
	BaseDelay     time.Duration // first backoff; doubles per attempt; default 500ms
	MaxDelay      time.Duration // cap on one computed backoff; default 20s
	MaxRetryAfter time.Duration // cap on a server's Retry-After; default 2m
	Log           *slog.Logger  // retries are logged at Warn; default discards
	// Sleep waits d or until ctx is done; tests inject a recording sleeper.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a float in [0,1); default math/rand/v2.
	Jitter func() float64
}

func (o *RetryOptions) setDefaults() {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = 500 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 20 * time.Second
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// NewRetryClient wraps c so that rate limits (429), server errors (5xx) and
// timeouts are retried with exponential backoff and full jitter, honouring a
// server's Retry-After (or retry-after-ms) header when the response carries
// one. Other 4xx errors and cancellation are returned at once.
func NewRetryClient(c ChatClient, o RetryOptions) ChatClient {
	o.setDefaults()
	return &retryClient{next: c, o: o}
}

type retryClient struct {
	next ChatClient
	o    RetryOptions
}

func (r *retryClient) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.next.CreateChatCompletion(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || !Retryable(err) {
			return resp, err
		}
		if attempt >= r.o.MaxAttempts {
			return resp, fmt.Errorf("model %s: giving up after %d attempts: %w", req.Model, attempt, err)
		}
		wait := r.backoff(attempt)
		if ra, ok := retryAfter(resp.Header()); ok {
			wait = min(ra, r.o.MaxRetryAfter)
		}
		r.o.Log.Warn("retrying model call", "model", req.Model, "attempt", attempt, "wait", wait, "status", StatusCode(err), "err", redact.Error(err))
		if err := r.o.Sleep(ctx, wait); err != nil {
			return resp, err
		}
	}
}

// backoff is full jitter over an exponentially growing window.
func (r *retryClient) backoff(attempt int) time.Duration {
	window := r.o.BaseDelay << (attempt - 1)
	if window > r.o.MaxDelay || window <= 0 {
		window = r.o.MaxDelay
	}
	return window/2 + time.Duration(r.o.Jitter()*float64(window/2))
}

// retryAfter parses Retry-After (seconds or an HTTP date) or retry-after-ms.
func retryAfter(h http.Header) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// StatusCode returns the HTTP status of a go-openai error, or 0.
func StatusCode(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// Retryable reports whether a model call that failed with err is worth
// repeating: HTTP 408, 409, 429 and 5xx, network timeouts and dropped
// connections. Other 4xx (bad request, auth, unknown model) are not.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if code := StatusCode(err); code != 0 {
		return code == http.StatusRequestTimeout || code == http.StatusConflict ||
			code == http.StatusTooManyRequests || code >= 500
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, context.DeadlineExceeded)
}

// NewEgressClient wraps c so that every request leaves with its secrets
// redacted by f (internal/egress): the text of every message — the issue,
// the prompts, tool results, earlier replies — and the arguments of the
// tool calls it repeats. The model provider never receives a value the
// filter detects. f nil means egress.Default().
//
// DESIGN: a conversation is sent again, whole, at every step, and the
// filter costs about a second per MB of text; each distinct text is
// therefore redacted once and its result kept (by SHA-256, up to
// egressCacheEntries, then the cache starts over), so a step pays only
// for what it adds.
func NewEgressClient(c ChatClient, f *egress.Filter) ChatClient {
	if f == nil {
		f = egress.Default()
	}
	return &egressClient{next: c, red: newRedactor(f)}
}

type egressClient struct {
	next ChatClient
	red  *redactor
}

func (e *egressClient) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	req.Messages = e.red.messages(req.Messages)
	return e.next.CreateChatCompletion(ctx, req)
}

const egressCacheEntries = 4096

// redactor redacts texts with a filter, each distinct text once.
type redactor struct {
	f    *egress.Filter
	mu   sync.Mutex
	seen map[[sha256.Size]byte]string
}

func newRedactor(f *egress.Filter) *redactor {
	return &redactor{f: f, seen: map[[sha256.Size]byte]string{}}
}

// messages returns a copy of msgs with every text redacted.
func (e *redactor) messages(in []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	msgs := make([]openai.ChatCompletionMessage, len(in))
	for i, m := range in {
		m.Content = e.text(m.Content)
		m.ReasoningContent = e.text(m.ReasoningContent)
		if len(m.MultiContent) > 0 {
			parts := make([]openai.ChatMessagePart, len(m.MultiContent))
			for j, p := range m.MultiContent {
				p.Text = e.text(p.Text)
				parts[j] = p
			}
			m.MultiContent = parts
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]openai.ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Function.Arguments = e.text(tc.Function.Arguments)
				calls[j] = tc
			}
			m.ToolCalls = calls
		}
		msgs[i] = m
	}
	return msgs
}

// text returns s redacted, from the cache when s was seen before.
func (e *redactor) text(s string) string {
	if len(s) < 8 {
		return s
	}
	key := sha256.Sum256([]byte(s))
	e.mu.Lock()
	out, ok := e.seen[key]
	e.mu.Unlock()
	if ok {
		return out
	}
	out = e.f.String(s)
	e.mu.Lock()
	if len(e.seen) >= egressCacheEntries {
		clear(e.seen)
	}
	e.seen[key] = out
	e.mu.Unlock()
	return out
}
