package agent

import (
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults of the bounds a run puts on what a model may ask of it.
const (
	// DefaultMaxToolCallsPerTurn is Options.MaxToolCallsPerTurn when zero.
	DefaultMaxToolCallsPerTurn = 20
	// DefaultMaxRetrievers is Options.MaxRetrievers when zero.
	DefaultMaxRetrievers = 24
	// DefaultRetrieverMaxToolBytes is Options.RetrieverMaxToolBytes when zero.
	DefaultRetrieverMaxToolBytes = 512 << 10
	// DefaultMaxTokens is Budget.MaxTokens when zero.
	DefaultMaxTokens = 2_000_000
)

// DESIGN: a model's reply is untrusted input. One reply may name any
// number of tool calls, and each answer is held in the conversation that
// every later request resends, so three bounds keep a run's cost in
// proportion to its options rather than to what the model asks:
//
//   - per turn, only the first MaxToolCallsPerTurn calls run (planner and
//     retrievers alike); every other call still gets its one tool message,
//     saying it was not run and why;
//   - per run, at most MaxRetrievers retrievers start; a retrieve call
//     beyond is answered the same way;
//   - per retriever, the tool results kept in its conversation total at
//     most RetrieverMaxToolBytes: when a turn's results take it over, the
//     oldest results are replaced, oldest first, by a note naming the call,
//     its size and its first line, and asking the model to call again for
//     what it still needs.
//
// The token budget (Budget.MaxTokens) defaults to DefaultMaxTokens, so a
// run without one configured still ends.

// refusedCall is the tool message of a call beyond the per-turn cap.
func refusedCall(made, limit int) string {
	return fmt.Sprintf("error: not run: this turn made %d tool calls and at most %d are run per turn (the first %d were run). "+
		"Make fewer, more specific calls; call again in your next turn if you still need this one.", made, limit, limit)
}

// refusedRetriever is the tool message of a retrieve call beyond the run's
// retriever cap.
func refusedRetriever(limit int) string {
	return fmt.Sprintf("error: not run: this run has already started its limit of %d retrievers. "+
		"Write your final answer from the reports you have.", limit)
}

// heldResult is one tool result kept in a retriever's conversation.
type heldResult struct {
	msg  int    // index in retrieval.msgs
	call string // "name args", clipped
	size int    // bytes of the original content
}

// keepResults appends one turn's tool messages to rt and then drops the
// oldest results while those kept exceed max bytes.
func (rt *retrieval) keepResults(calls []openai.ToolCall, outs []outcome, max int) (dropped int) {
	for i, c := range calls {
		rt.held = append(rt.held, heldResult{msg: len(rt.msgs), call: clipText(c.Function.Name+" "+strings.TrimSpace(c.Function.Arguments), 200), size: len(outs[i].content)})
		rt.heldBytes += len(outs[i].content)
		rt.msgs = append(rt.msgs, toolMsg(c.ID, outs[i].content))
	}
	for rt.heldBytes > max && len(rt.held) > 0 {
		h := rt.held[0]
		rt.held = rt.held[1:]
		m := &rt.msgs[h.msg]
		note := droppedNote(h, m.Content, max)
		rt.heldBytes += len(note) - len(m.Content)
		m.Content = note
		dropped++
	}
	return dropped
}

// droppedNote replaces a tool result dropped to stay within max bytes.
func droppedNote(h heldResult, content string, max int) string {
	first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	return fmt.Sprintf("[result dropped: the result of %s (%d bytes, beginning %q) was removed to keep this retriever's tool results within %s; "+
		"call again, asking for less, if you still need it]", h.call, h.size, clipText(first, 160), sizeText(max))
}

// sizeText is n bytes in KiB or MiB when round.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// replyFailure is why one model reply makes its retriever fail (rather than
// the whole run): a reply over the size relay reads. "" for other errors.
func replyFailure(err error) string {
	var big *ReplyTooLargeError
	if errors.As(err, &big) {
		return "the model's reply could not be used: " + big.Error()
	}
	return ""
}
