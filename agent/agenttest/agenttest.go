// Package agenttest holds fakes for testing code built on package agent:
// a scripted in-process ChatClient that records every request, and a
// scripted OpenAI-compatible HTTP server for driving the real go-openai
// client. It imports nothing of relay, so agent's own tests can use it.
package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Script decides the reply to one request. n counts the requests the fake
// has seen so far, starting at 1. Scripts run concurrently when the agent
// runs retrievers in parallel; route on the request (its model, its system
// prompt, its last message) rather than on n when that matters.
type Script func(ctx context.Context, req openai.ChatCompletionRequest, n int) (openai.ChatCompletionResponse, error)

// Client is a scripted ChatClient that records requests.
type Client struct {
	script Script
	mu     sync.Mutex
	reqs   []openai.ChatCompletionRequest
}

// NewClient returns a Client answering with script.
func NewClient(script Script) *Client { return &Client{script: script} }

// CreateChatCompletion records req and returns the script's reply.
func (c *Client) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	c.mu.Lock()
	req.Messages = append([]openai.ChatCompletionMessage(nil), req.Messages...)
	c.reqs = append(c.reqs, req)
	n := len(c.reqs)
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	return c.script(ctx, req, n)
}

// Requests returns a copy of the requests seen so far, in arrival order.
func (c *Client) Requests() []openai.ChatCompletionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), c.reqs...)
}

// Sequence returns a Script replying with replies in order (for a single
// agent, where order is deterministic); past the end it fails the call.
func Sequence(replies ...openai.ChatCompletionResponse) Script {
	var mu sync.Mutex
	i := 0
	return func(_ context.Context, _ openai.ChatCompletionRequest, _ int) (openai.ChatCompletionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		if i >= len(replies) {
			return openai.ChatCompletionResponse{}, fmt.Errorf("agenttest: script exhausted after %d replies", len(replies))
		}
		i++
		return replies[i-1], nil
	}
}

// Text is an assistant reply without tool calls. Usage counts 10 prompt
// and 5 completion tokens, so budgets can be tested.
func Text(content string) openai.ChatCompletionResponse {
	return reply(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content}, openai.FinishReasonStop)
}

// Calls is an assistant reply asking for tool calls.
func Calls(calls ...openai.ToolCall) openai.ChatCompletionResponse {
	return reply(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: calls}, openai.FinishReasonToolCalls)
}

// Call is one tool call; args is the raw JSON argument text (which may be
// deliberately malformed).
func Call(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// Args marshals v as tool-call arguments.
func Args(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func reply(m openai.ChatCompletionMessage, finish openai.FinishReason) openai.ChatCompletionResponse {
	return openai.ChatCompletionResponse{
		ID:      "chatcmpl-test",
		Object:  "chat.completion",
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: m, FinishReason: finish}},
		Usage:   openai.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
	}
}

// System returns the request's system prompt, or "".
func System(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			return m.Content
		}
	}
	return ""
}

// FirstUser returns the first user message: a retriever's task, the
// planner's issue or question.
func FirstUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}

// Last returns the request's last message.
func Last(req openai.ChatCompletionRequest) openai.ChatCompletionMessage {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionMessage{}
	}
	return req.Messages[len(req.Messages)-1]
}

// ToolMessages returns the tool messages of req in order.
func ToolMessages(req openai.ChatCompletionRequest) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m)
		}
	}
	return out
}

// ToolNames returns the names of the tools offered in req, in order.
func ToolNames(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, t := range req.Tools {
		if t.Function != nil {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

// Turns counts the assistant messages in req: how many model turns the
// agent has had before this request.
func Turns(req openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant {
			n++
		}
	}
	return n
}

// Contains reports whether any message of req contains s.
func Contains(req openai.ChatCompletionRequest, s string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}
