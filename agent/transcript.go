package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/internal/egress"
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
	red  *redactor // every text is redacted before it is written
}

// Transcript limits. One event records at most maxEventText bytes of each
// message, tool argument, tool result or note, and a request event (which
// repeats the whole conversation) at most maxRequestText over all its
// messages, older messages shrinking first to maxOldText: a 30 MB model reply
// must not become a transcript ten times that size.
const (
	maxEventText   = 64 << 10
	maxRequestText = 1 << 20
	maxOldText     = 2 << 10
)

// Default retention of the runs directory (Options.RunsKeep, RunsMaxBytes).
const (
	DefaultRunsKeep     = 200
	DefaultRunsMaxBytes = 256 << 20
)

// transcriptName matches the files openTranscript creates; retention
// touches nothing else in the directory.
var transcriptName = regexp.MustCompile(`^\d{8}T\d{6}Z-[A-Za-z0-9._-]+\.jsonl$`)

// openTranscript creates the run's transcript in dir (0700; the file 0600:
// transcripts quote the code base and the issue, as the index does) and then
// applies the retention limits to the transcripts already there.
func openTranscript(dir, runID string, now func() time.Time, keep int, maxBytes int64, log *slog.Logger) (*transcript, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create transcript directory: %w", err)
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		// A directory made by an older relay; tighten it.
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("restrict transcript directory: %w", err)
		}
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
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	if err := pruneTranscripts(dir, name, keep, maxBytes, log); err != nil {
		log.Warn("cannot prune old transcripts", "dir", dir, "err", err)
	}
	return &transcript{f: f, path: path, run: runID, now: now, red: newRedactor(egress.Default())}, nil
}

// pruneTranscripts deletes the oldest transcripts of dir beyond the newest
// keep, or beyond maxBytes in all (≤ 0: no limit of that kind); current, the
// transcript just created, is always kept. Names start with the run's UTC
// start time, so name order is age order. Transcripts left readable by
// others by an older relay are made private on the way.
func pruneTranscripts(dir, current string, keep int, maxBytes int64, log *slog.Logger) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && transcriptName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var total int64
	kept, removed := 0, 0
	var errs []error
	for _, n := range names {
		p := filepath.Join(dir, n)
		fi, err := os.Stat(p)
		if err != nil {
			continue // removed by a concurrent run's pruning
		}
		total += fi.Size()
		if n == current || ((keep <= 0 || kept < keep) && (maxBytes <= 0 || total <= maxBytes)) {
			kept++
			if fi.Mode().Perm()&0o077 != 0 {
				errs = append(errs, os.Chmod(p, 0o600))
			}
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	if removed > 0 {
		log.Debug("pruned old transcripts", "dir", dir, "removed", removed, "kept", kept)
	}
	return errors.Join(errs...)
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
	b, err := json.Marshal(t.redact(shrink(e)))
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

// redact returns e with its secrets redacted (internal/egress): a
// transcript quotes tool results, and so whatever a file held.
func (t *transcript) redact(e Event) Event {
	for _, s := range []*string{&e.Text, &e.Args, &e.Result, &e.Error} {
		*s = t.red.text(*s)
	}
	if e.Request != nil {
		req := *e.Request
		req.Messages = t.red.messages(req.Messages)
		e.Request = &req
	}
	if e.Response != nil {
		resp := *e.Response
		resp.Choices = make([]openai.ChatCompletionChoice, len(e.Response.Choices))
		for i, c := range e.Response.Choices {
			c.Message = t.red.messages([]openai.ChatCompletionMessage{c.Message})[0]
			resp.Choices[i] = c
		}
		e.Response = &resp
	}
	return e
}

// shrink returns e with its texts clipped to the transcript limits. The
// request and response are copied where clipped: they still belong to the
// run.
func shrink(e Event) Event {
	e.Args = clipText(e.Args, maxEventText)
	e.Result = clipText(e.Result, maxEventText)
	e.Text = clipText(e.Text, maxEventText)
	e.Error = clipText(e.Error, maxEventText)
	if e.Request != nil {
		req := *e.Request
		req.Messages = make([]openai.ChatCompletionMessage, len(e.Request.Messages))
		budget := maxRequestText
		// Newest first: the last messages are what this request adds.
		for i := len(req.Messages) - 1; i >= 0; i-- {
			limit := min(maxEventText, max(budget, maxOldText))
			m := clipMessage(e.Request.Messages[i], limit)
			budget -= textLen(m)
			req.Messages[i] = m
		}
		e.Request = &req
	}
	if e.Response != nil {
		resp := *e.Response
		resp.Choices = make([]openai.ChatCompletionChoice, len(e.Response.Choices))
		for i, c := range e.Response.Choices {
			c.Message = clipMessage(c.Message, maxEventText)
			resp.Choices[i] = c
		}
		e.Response = &resp
	}
	return e
}

// clipMessage clips a message's texts to limit bytes each.
func clipMessage(m openai.ChatCompletionMessage, limit int) openai.ChatCompletionMessage {
	m.Content = clipText(m.Content, limit)
	m.ReasoningContent = clipText(m.ReasoningContent, limit)
	if len(m.MultiContent) > 0 {
		parts := make([]openai.ChatMessagePart, len(m.MultiContent))
		for i, p := range m.MultiContent {
			p.Text = clipText(p.Text, limit)
			parts[i] = p
		}
		m.MultiContent = parts
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]openai.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Function.Arguments = clipText(c.Function.Arguments, limit)
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}

// textLen is the length of a message's texts.
func textLen(m openai.ChatCompletionMessage) int {
	n := len(m.Content) + len(m.ReasoningContent)
	for _, p := range m.MultiContent {
		n += len(p.Text)
	}
	for _, c := range m.ToolCalls {
		n += len(c.Function.Arguments)
	}
	return n
}

// clipText cuts s to at most limit bytes (at a rune boundary) and says how
// much it dropped.
func clipText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes dropped)", s[:cut], len(s)-cut)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
