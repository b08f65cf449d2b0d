package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tools"
)

// Models names the model of each stage. Retriever and Gap default to
// Planner; the gap model also writes answers for relay ask.
type Models struct {
	Planner   string
	Retriever string
	Gap       string
}

// Options configure a [Runner]. Client, Root and Models.Planner are required;
// zero values elsewhere take the defaults noted on each field.
type Options struct {
	Client ChatClient      // the model endpoint, usually NewRetryClient(NewOpenAIClient(…))
	Tools  *tools.Registry // retriever tools; only read-only ones are offered
	Root   string          // repository root; cited path:line locations are checked against it
	Models Models

	RetrieverSoftCap int           // model turns before a retriever must report; default DefaultRetrieverSteps
	RetrieverTimeout time.Duration // hard deadline of one retriever; default DefaultRetrieverTimeout
	PlannerMaxSteps  int           // planner turns; default DefaultPlannerSteps
	Parallel         int           // retrievers running at once; default DefaultParallel
	ToolParallel     int           // read-only tool calls of one turn running at once; default 8
	LoopWindow       int           // recent tool calls checked for repeats; default 12
	LoopRepeats      int           // identical (name, args, result) in the window that count as a loop; default 3
	NoJSONMode       bool          // do not send response_format json_object (endpoints that reject it)
	// MaxToolCallsPerTurn caps the tool calls of one model turn that run
	// (planner and retrievers); each call beyond gets a tool message saying
	// it was not run. Default DefaultMaxToolCallsPerTurn.
	MaxToolCallsPerTurn int
	// MaxRetrievers caps the retrievers one run starts; a retrieve call
	// beyond is answered as not run. Default DefaultMaxRetrievers.
	MaxRetrievers int
	// RetrieverMaxToolBytes caps the bytes of tool results one retriever
	// keeps in its conversation; the oldest are replaced by a note beyond
	// it. Default DefaultRetrieverMaxToolBytes.
	RetrieverMaxToolBytes int

	// Budget bounds the run; Budget.MaxTokens 0 means DefaultMaxTokens and
	// a negative value no token limit.
	Budget  Budget
	Prices  map[string]Price // by model name
	RunsDir string           // transcripts go here; "" writes none
	// RunsKeep and RunsMaxBytes bound RunsDir: when a run starts, the oldest
	// transcripts beyond the newest RunsKeep, or beyond RunsMaxBytes in all,
	// are deleted. Defaults DefaultRunsKeep and DefaultRunsMaxBytes; a
	// negative value lifts that limit.
	RunsKeep     int
	RunsMaxBytes int64

	Now      func() time.Time // default time.Now
	NewID    func() string    // run IDs; default 8 random hex characters
	Log      *slog.Logger     // default discards
	Progress func(Progress)   // streamed progress; may be nil; called from many goroutines
}

// Progress is one streamed progress event, for a person watching a run.
type Progress struct {
	Kind    string        // "stage", "retriever_start", "tool_call", "retriever_done", "note"
	Stage   Stage         //
	Agent   string        // e.g. "retriever-2"
	Query   string        // retriever_start: the task
	Tool    string        // tool_call: tool name
	Args    string        // tool_call: raw JSON arguments
	Text    string        // retriever_done: "incomplete: …" or ""; note: the note
	Elapsed time.Duration // since the run started
}

// Runner runs planner → retrievers → gap detector (or answer writer).
// It is safe for concurrent use; each Scope/Ask/Retrieve call is one run
// with its own transcript and budget.
type Runner struct {
	o    Options
	http *http.Client // NewFromConfig's, closed by Close; nil for New's
}

// Close releases the idle connections of the HTTP client NewFromConfig
// made for r; a Runner from New has nothing to release.
func (r *Runner) Close() {
	if r.http != nil {
		r.http.CloseIdleConnections()
	}
}

// New checks o and returns a Runner.
func New(o Options) (*Runner, error) {
	if o.Client == nil {
		return nil, errors.New("agent: Options.Client is nil; configure a model endpoint")
	}
	if o.Root == "" {
		return nil, errors.New("agent: Options.Root is empty; pass the repository root")
	}
	if o.Models.Planner == "" {
		return nil, fmt.Errorf("agent: Options.Models.Planner is empty: %w", ErrNoModel)
	}
	if o.Models.Retriever == "" {
		o.Models.Retriever = o.Models.Planner
	}
	if o.Models.Gap == "" {
		o.Models.Gap = o.Models.Planner
	}
	if o.Tools == nil {
		o.Tools = tools.NewRegistry()
	}
	o.Tools = o.Tools.ReadOnly()
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.RetrieverSoftCap, DefaultRetrieverSteps)
	def(&o.PlannerMaxSteps, DefaultPlannerSteps)
	def(&o.Parallel, DefaultParallel)
	def(&o.ToolParallel, 8)
	def(&o.LoopWindow, 12)
	def(&o.LoopRepeats, 3)
	def(&o.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	def(&o.MaxRetrievers, DefaultMaxRetrievers)
	def(&o.RetrieverMaxToolBytes, DefaultRetrieverMaxToolBytes)
	switch {
	case o.Budget.MaxTokens == 0:
		o.Budget.MaxTokens = DefaultMaxTokens
	case o.Budget.MaxTokens < 0:
		o.Budget.MaxTokens = 0 // the meter's "no limit"
	}
	if o.RunsKeep == 0 {
		o.RunsKeep = DefaultRunsKeep
	}
	if o.RunsMaxBytes == 0 {
		o.RunsMaxBytes = DefaultRunsMaxBytes
	}
	if o.RetrieverTimeout <= 0 {
		o.RetrieverTimeout = DefaultRetrieverTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Progress == nil {
		o.Progress = func(Progress) {}
	}
	return &Runner{o: o}, nil
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// run is the state of one Scope/Ask/Retrieve call.
type run struct {
	r      *Runner
	id     string
	tr     *transcript
	meter  *meter
	start  time.Time
	agents atomic.Int64
	// retrievers counts the retrieve calls the planner was granted (MaxRetrievers).
	retrievers atomic.Int64
}

func (r *Runner) newRun(kind, text string) (*run, error) {
	id := r.o.NewID()
	tr, err := openTranscript(r.o.RunsDir, id, r.o.Now, r.o.RunsKeep, r.o.RunsMaxBytes, r.o.Log)
	if err != nil {
		return nil, err
	}
	rn := &run{r: r, id: id, tr: tr, meter: newMeter(r.o.Budget, r.o.Prices), start: r.o.Now()}
	tr.record(Event{Type: "run_start", Kind: kind, Text: text})
	return rn, nil
}

// finish writes the run_end event and closes the transcript.
func (rn *run) finish(stopped string, runErr error) (Usage, error) {
	u := rn.meter.usage()
	e := Event{Type: "run_end", DurationMS: ms(rn.r.o.Now().Sub(rn.start)), Usage: &u, Text: stopped}
	if runErr != nil {
		e.Error = runErr.Error()
	}
	rn.tr.record(e)
	return u, rn.tr.close()
}

func (rn *run) elapsed() time.Duration { return rn.r.o.Now().Sub(rn.start) }

func (rn *run) progress(p Progress) {
	p.Elapsed = rn.elapsed()
	rn.r.o.Progress(p)
}

func (rn *run) note(stage Stage, agent, text string) {
	rn.tr.record(Event{Type: "note", Stage: stage, Agent: agent, Text: text})
	rn.r.o.Log.Info("agent note", "run", rn.id, "stage", stage, "agent", agent, "note", text)
	rn.progress(Progress{Kind: "note", Stage: stage, Agent: agent, Text: text})
}

// chat makes one model call under the run's budget and records it.
func (rn *run) chat(ctx context.Context, stage Stage, agent string, step int, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	if err := rn.meter.admit(); err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	rn.tr.record(Event{Type: "request", Stage: stage, Agent: agent, Model: req.Model, Step: step, Request: &req})
	t0 := time.Now()
	resp, err := rn.r.o.Client.CreateChatCompletion(ctx, req)
	d := time.Since(t0)
	e := Event{Type: "response", Stage: stage, Agent: agent, Model: req.Model, Step: step, DurationMS: ms(d)}
	if err != nil {
		err = endpointError(err)
		e.Error = err.Error()
		rn.tr.record(e)
		return resp, fmt.Errorf("%s model %s: %w", stage, req.Model, err)
	}
	e.Response = &resp
	e.PromptTokens, e.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	rn.tr.record(e)
	rn.meter.add(stage, req.Model, int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens), d)
	rn.r.o.Log.Info("model call", "run", rn.id, "stage", stage, "agent", agent, "step", step, "model", req.Model,
		"prompt_tokens", resp.Usage.PromptTokens, "completion_tokens", resp.Usage.CompletionTokens, "dur", d)
	return resp, nil
}

// endpointError makes a model call's error fit to show: URLs redacted (net/http
// and go-openai name the request URL, which may carry a password), a
// [*ReplyError] or [*ReplyTooLargeError] without the "Post URL:" wrapping
// around it, and the text clipped (an error reply's body is part of
// go-openai's message). errors.Is and errors.As still see the original.
func endpointError(err error) error {
	var re *ReplyError
	if errors.As(err, &re) {
		return &shownError{msg: re.Error(), err: err}
	}
	var big *ReplyTooLargeError
	if errors.As(err, &big) {
		return &shownError{msg: big.Error(), err: err}
	}
	err = redact.Error(err)
	if msg := err.Error(); len(msg) > maxErrorText {
		return &shownError{msg: clipText(msg, maxErrorText), err: err}
	}
	return err
}

// maxErrorText caps the text of one model error.
const maxErrorText = 2 << 10

// shownError replaces an error's text and keeps its chain.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

// stopReason classifies why a stage ended early: the budget, the deadline,
// or cancellation; "" for any other error.
//
// Only the run's own deadlines (ctx: the run's timeout, a retriever's hard deadline)
// count as "timeout". A model request that timed out on its own while ctx
// is still live (the HTTP client's per-request timeout, retried and given
// up) is an endpoint failure like an HTTP 500: it wraps
// context.DeadlineExceeded too, but ending the run "with what it has" would
// hand an empty report to a caller such as relay batch as if it were done.
func (rn *run) stopReason(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, ErrBudget):
		return "budget: " + rn.meter.stopReason()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timeout"
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return ""
}

func userMsg(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}

func systemMsg(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s}
}

func toolMsg(id, content string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: content}
}
