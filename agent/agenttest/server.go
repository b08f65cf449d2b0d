package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is one scripted HTTP answer of a [Server].
type Reply struct {
	Status int               // default 200
	Header map[string]string // e.g. {"Retry-After": "0"}
	Body   string            // raw body; when "" and Status is 200, Completion is encoded
	Delay  time.Duration     // wait before answering (honours the request's cancellation)

	Completion openai.ChatCompletionResponse
}

// OK wraps a completion as a 200 reply.
func OK(c openai.ChatCompletionResponse) Reply { return Reply{Completion: c} }

// Error is an OpenAI-style error reply with the given status.
func Error(status int, message string) Reply {
	return Reply{Status: status, Body: fmt.Sprintf(`{"error":{"message":%q,"type":"test_error"}}`, message)}
}

// Handler decides the reply to one decoded request; n counts requests from 1.
type Handler func(req openai.ChatCompletionRequest, n int) Reply

// Server is a scripted OpenAI-compatible endpoint (POST /v1/chat/completions)
// over httptest. Point go-openai at it with BaseURL = srv.URL() + "/v1".
type Server struct {
	srv     *httptest.Server
	handler Handler
	mu      sync.Mutex
	reqs    []openai.ChatCompletionRequest
}

// NewServer starts a Server; Close it when done (t.Cleanup(srv.Close)).
func NewServer(h Handler) *Server {
	s := &Server{handler: h}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base URL (without /v1).
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the decoded requests seen so far, in arrival order.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.reqs...)
}

// Forget drops the recorded requests (long runs that measure memory).
func (s *Server) Forget() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, "decode request: "+err.Error())
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	rep := s.handler(req, n)
	if rep.Delay > 0 {
		if !wait(r.Context(), rep.Delay) {
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rep.Body != "" || status != http.StatusOK {
		_, _ = w.Write([]byte(rep.Body))
		return
	}
	_ = json.NewEncoder(w).Encode(rep.Completion)
}

func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
