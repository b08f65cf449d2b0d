package agent

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/prompts"
	"github.com/relayhq/relay/tools"
)

// Report is what one retriever returns: prose with path:line citations.
type Report struct {
	Agent        string        `json:"agent"`
	Query        string        `json:"query"`
	Text         string        `json:"text"`
	Incomplete   bool          `json:"incomplete,omitempty"`
	Reason       string        `json:"reason,omitempty"` // why it is incomplete
	Steps        int           `json:"steps"`            // model turns
	ToolCalls    int           `json:"tool_calls"`
	BadCitations []Citation    `json:"bad_citations,omitempty"`
	Duration     time.Duration `json:"duration_ns"`
}

// extraTurns is how many turns a retriever gets after its soft cap before it
// is stopped: enough to write the report, and to be told once more if it
// keeps calling tools that are gone.
const extraTurns = 3

// emptyNudge is sent once when a model ends its turn with neither tool calls
// nor text.
const emptyNudge = "Your last reply was empty. Write your final report now as prose, citing path:line locations you saw."

// Retrieve runs one retriever for query as a run of its own (with its own
// transcript and budget).
func (r *Runner) Retrieve(ctx context.Context, query string) (*Report, Usage, error) {
	rn, err := r.newRun("retrieve", query)
	if err != nil {
		return nil, Usage{}, err
	}
	rep, err := rn.retrieve(ctx, query)
	stopped := ""
	if rep != nil && rep.Incomplete {
		stopped = rep.Reason
	}
	u, cerr := rn.finish(stopped, err)
	return rep, u, errors.Join(err, cerr)
}

// retrieve runs one retriever sub-agent: a fresh transcript, read-only tools,
// a soft step cap and a hard deadline. It returns a report in every case but
// infrastructure failure (a tool's Go error, a model error that is neither
// budget nor deadline nor cancellation); then it returns the error.
func (rn *run) retrieve(ctx context.Context, query string) (*Report, error) {
	o := rn.r.o
	agent := fmt.Sprintf("retriever-%d", rn.agents.Add(1))
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.RetrieverTimeout)
	defer cancel()
	rn.progress(Progress{Kind: "retriever_start", Stage: StageRetriever, Agent: agent, Query: query})

	ts := newToolSet(o.Tools)
	sys, err := retrieverPrompt(o.Tools)
	if err != nil {
		return nil, err
	}
	msgs := []openai.ChatCompletionMessage{systemMsg(sys), userMsg(query)}
	rep := &Report{Agent: agent, Query: query}
	loops := newLoopDetector(o.LoopWindow, o.LoopRepeats)
	var notes []string // intermediate text, for a partial report
	var called []string
	nudged := false
	finish := func(text, reason string) (*Report, error) {
		rep.Duration = time.Since(t0)
		if reason != "" {
			rep.Incomplete, rep.Reason = true, reason
			text = partialReport(reason, text, notes, called)
		}
		rep.Text, rep.BadCitations = checkCitations(o.Root, text)
		if len(rep.BadCitations) > 0 {
			rn.note(StageRetriever, agent, fmt.Sprintf("%d citation(s) not found in the checkout", len(rep.BadCitations)))
		}
		done := Progress{Kind: "retriever_done", Stage: StageRetriever, Agent: agent}
		if rep.Incomplete {
			done.Text = "incomplete: " + rep.Reason
		}
		rn.progress(done)
		return rep, nil
	}

	for step := 1; ; step++ {
		req := openai.ChatCompletionRequest{Model: o.Models.Retriever, Messages: msgs}
		switch {
		case step <= o.RetrieverSoftCap:
			req.Tools = ts.specs
		case step == o.RetrieverSoftCap+1:
			rn.note(StageRetriever, agent, fmt.Sprintf("soft cap of %d turns reached; asking for the final report, tools removed", o.RetrieverSoftCap))
			msgs = append(msgs, userMsg(prompts.MustRender(prompts.Synthesize, nil)))
			req.Messages = msgs
		case step > o.RetrieverSoftCap+extraTurns:
			return finish("", fmt.Sprintf("no final report after the soft cap of %d turns", o.RetrieverSoftCap))
		}
		if len(ts.specs) == 0 {
			req.Tools = nil
		}
		resp, err := rn.chat(ctx, StageRetriever, agent, step, req)
		rep.Steps = step
		if err != nil {
			if why := rn.stopReason(ctx, err); why != "" {
				return finish("", why)
			}
			return nil, fmt.Errorf("%s: %w", agent, err)
		}
		if len(resp.Choices) == 0 {
			return nil, fmt.Errorf("%s: model %s returned no choices", agent, req.Model)
		}
		msg := resp.Choices[0].Message
		msg.Role = openai.ChatMessageRoleAssistant
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			text := strings.TrimSpace(msg.Content)
			if text != "" {
				return finish(text, "")
			}
			if nudged {
				return finish("", "the model returned an empty answer")
			}
			nudged = true
			rn.note(StageRetriever, agent, "empty answer; asking again")
			msgs = append(msgs, userMsg(emptyNudge))
			continue
		}
		if t := strings.TrimSpace(msg.Content); t != "" {
			notes = append(notes, t)
		}
		set := ts
		if req.Tools == nil {
			set = newToolSet(emptyRegistry) // tools were removed: every call is answered as unknown
		}
		rep.ToolCalls += len(msg.ToolCalls)
		outs, err := rn.dispatch(ctx, set, StageRetriever, agent, step, msg.ToolCalls, o.ToolParallel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", agent, err)
		}
		for i, c := range msg.ToolCalls {
			msgs = append(msgs, toolMsg(c.ID, outs[i].content))
			called = append(called, fmt.Sprintf("%s %s", c.Function.Name, c.Function.Arguments))
		}
		if steer := loops.observe(msg.ToolCalls, outs); steer != "" {
			rn.note(StageRetriever, agent, "loop detected: "+steer)
			msgs = append(msgs, userMsg(steer))
		}
	}
}

// retrieverPrompt is a retriever's system prompt, naming its tools.
func retrieverPrompt(reg *tools.Registry) (string, error) {
	var infos []prompts.ToolInfo
	for _, t := range reg.Tools() {
		// The full description travels in the tool's schema; the prompt
		// gets its first paragraph, to save tokens on every turn.
		infos = append(infos, prompts.ToolInfo{Name: t.Name(), Description: firstParagraph(t.Description())})
	}
	return prompts.Render(prompts.Retriever, prompts.RetrieverData{Tools: infos})
}

func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// partialReport is what an interrupted retriever hands back: a marker, its
// last words, the notes it made between tool calls and the calls it made.
func partialReport(reason, text string, notes, called []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[incomplete report: %s]\n", reason)
	if text != "" {
		b.WriteString("\n" + text + "\n")
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes made while exploring:\n")
		for _, n := range notes {
			b.WriteString("- " + strings.ReplaceAll(n, "\n", "\n  ") + "\n")
		}
	}
	if len(called) > 0 {
		b.WriteString("\nTool calls made:\n")
		const maxListed = 30
		for i, c := range called {
			if i == maxListed {
				fmt.Fprintf(&b, "- … and %d more\n", len(called)-maxListed)
				break
			}
			b.WriteString("- " + c + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// loopDetector remembers the signatures (name, args, result) of the last
// window tool calls; a signature seen repeats times means the model is going
// round in circles.
type loopDetector struct {
	window, repeats int
	recent          [][32]byte
}

func newLoopDetector(window, repeats int) *loopDetector {
	return &loopDetector{window: window, repeats: repeats}
}

// observe adds one turn's calls and returns a steering message when a call
// repeats, or "".
func (l *loopDetector) observe(calls []openai.ToolCall, outs []outcome) string {
	var steer string
	for i, c := range calls {
		sig := sha256.Sum256([]byte(c.Function.Name + "\x00" + strings.TrimSpace(c.Function.Arguments) + "\x00" + outs[i].content))
		l.recent = append(l.recent, sig)
		if len(l.recent) > l.window {
			l.recent = l.recent[len(l.recent)-l.window:]
		}
		n := 0
		for _, s := range l.recent {
			if s == sig {
				n++
			}
		}
		if n >= l.repeats && steer == "" {
			steer = fmt.Sprintf("You are repeating yourself: %s was called with the same arguments %d times and returned the same result each time. "+
				"Do not call it again with these arguments. Try a different tool, pattern or file, or write your final report if you have enough.",
				c.Function.Name, n)
			kept := l.recent[:0]
			for _, s := range l.recent {
				if s != sig {
					kept = append(kept, s)
				}
			}
			l.recent = kept
		}
	}
	return steer
}

// emptyRegistry answers calls made after the tools were removed.
var emptyRegistry = tools.NewRegistry()
