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
	rt := &retrieval{agent: fmt.Sprintf("retriever-%d", rn.agents.Add(1)), t0: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, o.RetrieverTimeout)
	defer cancel()
	rn.progress(Progress{Kind: "retriever_start", Stage: StageRetriever, Agent: rt.agent, Query: query})

	ts := newToolSet(o.Tools)
	sys, err := retrieverPrompt(o.Tools)
	if err != nil {
		return nil, err
	}
	rt.msgs = []openai.ChatCompletionMessage{systemMsg(sys), userMsg(query)}
	rt.rep = &Report{Agent: rt.agent, Query: query}
	loops := newLoopDetector(o.LoopWindow, o.LoopRepeats)
	for step := 1; ; step++ {
		req, stop := rn.retrieverRequest(rt, ts, step)
		if stop != "" {
			return rn.finishRetrieval(rt, "", stop)
		}
		resp, err := rn.chat(ctx, StageRetriever, rt.agent, step, req)
		rt.rep.Steps = step
		if err != nil {
			if why := rn.stopReason(ctx, err); why != "" {
				return rn.finishRetrieval(rt, "", why)
			}
			if why := replyFailure(err); why != "" {
				rn.note(StageRetriever, rt.agent, why)
				return rn.finishRetrieval(rt, "", why)
			}
			return nil, fmt.Errorf("%s: %w", rt.agent, err)
		}
		if len(resp.Choices) == 0 {
			return nil, fmt.Errorf("%s: model %s returned no choices", rt.agent, req.Model)
		}
		msg := resp.Choices[0].Message
		msg.Role = openai.ChatMessageRoleAssistant
		rt.msgs = append(rt.msgs, msg)
		if len(msg.ToolCalls) == 0 {
			text := strings.TrimSpace(msg.Content)
			if text != "" {
				return rn.finishRetrieval(rt, text, "")
			}
			if rt.nudged {
				return rn.finishRetrieval(rt, "", "the model returned an empty answer")
			}
			rt.nudged = true
			rn.note(StageRetriever, rt.agent, "empty answer; asking again")
			rt.msgs = append(rt.msgs, userMsg(emptyNudge))
			continue
		}
		if t := strings.TrimSpace(msg.Content); t != "" {
			rt.notes = append(rt.notes, t)
		}
		set := ts
		if req.Tools == nil {
			set = newToolSet(emptyRegistry) // tools were removed: every call is answered as unknown
		}
		rt.rep.ToolCalls += len(msg.ToolCalls)
		outs, err := rn.dispatch(ctx, set, StageRetriever, rt.agent, step, msg.ToolCalls, o.ToolParallel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.agent, err)
		}
		for _, c := range msg.ToolCalls {
			rt.called = append(rt.called, fmt.Sprintf("%s %s", c.Function.Name, c.Function.Arguments))
		}
		if n := rt.keepResults(msg.ToolCalls, outs, o.RetrieverMaxToolBytes); n > 0 {
			rn.note(StageRetriever, rt.agent, fmt.Sprintf("%d older tool result(s) dropped to keep the results within %s", n, sizeText(o.RetrieverMaxToolBytes)))
		}
		if steer := loops.observe(msg.ToolCalls, outs); steer != "" {
			rn.note(StageRetriever, rt.agent, "loop detected: "+steer)
			rt.msgs = append(rt.msgs, userMsg(steer))
		}
	}
}

// retrieval is one retriever's conversation so far.
type retrieval struct {
	agent  string
	t0     time.Time
	rep    *Report
	msgs   []openai.ChatCompletionMessage
	notes  []string // intermediate text, for a partial report
	called []string // "name args" of every tool call, for a partial report
	nudged bool     // asked once again after an empty answer
	// held lists the tool results kept in msgs, oldest first, and
	// heldBytes their size (RetrieverMaxToolBytes).
	held      []heldResult
	heldBytes int
}

// retrieverRequest builds the request of turn step: with the tools up to
// the soft cap, then once asking for the final report without them. stop
// is why the retriever ends instead, when the turns after the cap are
// spent.
func (rn *run) retrieverRequest(rt *retrieval, ts *toolSet, step int) (req openai.ChatCompletionRequest, stop string) {
	o := rn.r.o
	req = openai.ChatCompletionRequest{Model: o.Models.Retriever, Messages: rt.msgs}
	switch {
	case step <= o.RetrieverSoftCap:
		req.Tools = ts.specs
	case step == o.RetrieverSoftCap+1:
		rn.note(StageRetriever, rt.agent, fmt.Sprintf("soft cap of %d turns reached; asking for the final report, tools removed", o.RetrieverSoftCap))
		rt.msgs = append(rt.msgs, userMsg(prompts.MustRender(prompts.Synthesize, nil)))
		req.Messages = rt.msgs
	case step > o.RetrieverSoftCap+extraTurns:
		return req, fmt.Sprintf("no final report after the soft cap of %d turns", o.RetrieverSoftCap)
	}
	if len(ts.specs) == 0 {
		req.Tools = nil
	}
	return req, ""
}

// finishRetrieval completes rt's report with text (or, given a reason, a
// partial report from what the retriever said and called), checks its
// citations and reports progress.
func (rn *run) finishRetrieval(rt *retrieval, text, reason string) (*Report, error) {
	rep := rt.rep
	rep.Duration = time.Since(rt.t0)
	if reason != "" {
		rep.Incomplete, rep.Reason = true, reason
		text = partialReport(reason, text, rt.notes, rt.called)
	}
	rep.Text, rep.BadCitations = checkCitations(rn.r.o.Root, text)
	if len(rep.BadCitations) > 0 {
		rn.note(StageRetriever, rt.agent, fmt.Sprintf("%d citation(s) not found in the checkout", len(rep.BadCitations)))
	}
	done := Progress{Kind: "retriever_done", Stage: StageRetriever, Agent: rt.agent}
	if rep.Incomplete {
		done.Text = "incomplete: " + rep.Reason
	}
	rn.progress(done)
	return rep, nil
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
