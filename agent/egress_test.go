package agent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/internal/egress/egresstest"
)

// recordingClient keeps every request it is sent, as JSON.
type recordingClient struct {
	mu   sync.Mutex
	sent []string
}

func (r *recordingClient) CreateChatCompletion(_ context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	r.mu.Lock()
	r.sent = append(r.sent, string(b))
	r.mu.Unlock()
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: "ok"}}}}, nil
}

// canaryConversation quotes every file of the canary repository as tool
// results, in the issue, in tool-call arguments and in multi-part content.
func canaryConversation() []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "You scope issues."}}
	for name, data := range egresstest.Files() {
		args, _ := json.Marshal(map[string]string{"file": name, "note": data})
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: "user", Content: "The issue quotes " + name + ":\n" + data},
			openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "read", Arguments: string(args)}}}},
			openai.ChatCompletionMessage{Role: "tool", ToolCallID: "c1", Content: data},
			openai.ChatCompletionMessage{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: data}}},
		)
	}
	return msgs
}

func TestEgressClientRedactsRequests(t *testing.T) {
	rec := &recordingClient{}
	c := NewEgressClient(rec, nil)
	req := openai.ChatCompletionRequest{Model: "m", Messages: canaryConversation()}
	for range 2 { // the second request is answered from the cache
		if _, err := c.CreateChatCompletion(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	for i, body := range rec.sent {
		if leaks := egresstest.Leaks(body); len(leaks) > 0 {
			t.Errorf("request %d leaked %v", i, leaks)
		}
		if !strings.Contains(body, "[redacted: ") {
			t.Errorf("request %d: nothing redacted", i)
		}
	}
	if len(rec.sent) == 2 && rec.sent[0] != rec.sent[1] {
		t.Errorf("the cached request differs from the first")
	}
	var orig strings.Builder
	for _, m := range req.Messages {
		orig.WriteString(m.Content)
	}
	if leaks := egresstest.Leaks(orig.String()); len(leaks) == 0 {
		t.Errorf("the caller's messages were changed in place")
	}
}

func TestTranscriptRedacts(t *testing.T) {
	dir := t.TempDir()
	tr, err := openTranscript(dir, "run1", time.Now, 10, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := canaryConversation()
	for name, data := range egresstest.Files() {
		tr.record(Event{Type: "tool_result", Tool: "read", Args: `{"file":"` + name + `"}`, Result: data})
		tr.record(Event{Type: "note", Text: data, Error: data})
	}
	tr.record(Event{Type: "request", Request: &openai.ChatCompletionRequest{Messages: msgs}})
	tr.record(Event{Type: "response", Response: &openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msgs[2]}}}})
	if err := tr.close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	if leaks := egresstest.Leaks(string(data)); len(leaks) > 0 {
		t.Errorf("transcript leaked %v", leaks)
	}
}
