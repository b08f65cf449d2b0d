package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Event is one line of a run transcript (JSONL). Type says which fields are
// set:
//
//	run_start   Text (the issue or question), Kind
//	request     Stage, Agent, Model, Step, Request
//	response    Stage, Agent, Model, Step, Response, DurationMS, PromptTokens, CompletionTokens, Error
//	tool_call   Stage, Agent, Step, Tool, CallID, Args
//	tool_result Stage, Agent, Step, Tool, CallID, Result, IsError, DurationMS
//	note        Stage, Agent, Text (soft cap reached, loop detected, citations flagged, …)
//	run_end     DurationMS, Usage, Text (why the run stopped early, if it did), Error
type Event struct {
	Time             time.Time                      `json:"time"`
	Run              string                         `json:"run"`
	Seq              int64                          `json:"seq"`
	Type             string                         `json:"type"`
	Kind             string                         `json:"kind,omitempty"`
	Stage            Stage                          `json:"stage,omitempty"`
	Agent            string                         `json:"agent,omitempty"`
	Model            string                         `json:"model,omitempty"`
	Step             int                            `json:"step,omitempty"`
	Request          *openai.ChatCompletionRequest  `json:"request,omitempty"`
	Response         *openai.ChatCompletionResponse `json:"response,omitempty"`
	Tool             string                         `json:"tool,omitempty"`
	CallID           string                         `json:"call_id,omitempty"`
	Args             string                         `json:"args,omitempty"`
	Result           string                         `json:"result,omitempty"`
	IsError          bool                           `json:"is_error,omitempty"`
	DurationMS       float64                        `json:"duration_ms,omitempty"`
	PromptTokens     int                            `json:"prompt_tokens,omitempty"`
	CompletionTokens int                            `json:"completion_tokens,omitempty"`
	Usage            *Usage                         `json:"usage,omitempty"`
	Text             string                         `json:"text,omitempty"`
	Error            string                         `json:"error,omitempty"`
}

// transcript appends events to <dir>/<timestamp>-<id>.jsonl. A nil
// *transcript (no directory configured) records nothing. Safe for concurrent
// use; a write error is kept and reported by close, never interrupting a run.
type transcript struct {
	mu   sync.Mutex
	f    *os.File
	path string
	run  string
	now  func() time.Time
	seq  int64
	err  error
}

func openTranscript(dir, runID string, now func() time.Time) (*transcript, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create transcript directory: %w", err)
	}
	// Transcripts quote the code base; keep them out of version control.
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(gi, []byte("*\n"), 0o644); err != nil {
			return nil, fmt.Errorf("create %s: %w", gi, err)
		}
	}
	name := fmt.Sprintf("%s-%s.jsonl", now().UTC().Format("20060102T150405Z"), runID)
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	return &transcript{f: f, path: path, run: runID, now: now}, nil
}

// Path returns the transcript file, or "" when none is written.
func (t *transcript) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

func (t *transcript) record(e Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	t.seq++
	e.Seq = t.seq
	e.Run = t.run
	e.Time = t.now().UTC()
	b, err := json.Marshal(e)
	if err != nil {
		t.err = fmt.Errorf("encode transcript event %s: %w", e.Type, err)
		return
	}
	b = append(b, '\n')
	if _, err := t.f.Write(b); err != nil {
		t.err = fmt.Errorf("write transcript: %w", err)
	}
}

func (t *transcript) close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	cerr := t.f.Close()
	if t.err != nil {
		return t.err
	}
	if cerr != nil {
		return fmt.Errorf("close transcript: %w", cerr)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
