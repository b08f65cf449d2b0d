package agent

import (
	"fmt"
	"strings"
)

// Line is the progress event as one line of a run's log (the CLI's
// stderr): the stage, a retriever's task, its tool calls (arguments cut to
// 100 characters), its end or a note, prefixed by the seconds since the run
// started; "" for an event of no other kind.
func (p Progress) Line() string {
	var line string
	switch p.Kind {
	case "stage":
		line = fmt.Sprintf("== %s", p.Stage)
	case "retriever_start":
		line = fmt.Sprintf("%s ▶ %s", p.Agent, oneLine(p.Query, 100))
	case "tool_call":
		line = fmt.Sprintf("%s   %s %s", p.Agent, p.Tool, oneLine(p.Args, 100))
	case "retriever_done":
		line = fmt.Sprintf("%s ✓ done", p.Agent)
		if p.Text != "" {
			line = fmt.Sprintf("%s ✗ %s", p.Agent, p.Text)
		}
	case "note":
		line = fmt.Sprintf("%s note: %s", p.Agent, oneLine(p.Text, 140))
	default:
		return ""
	}
	return fmt.Sprintf("[%6.1fs] %s", p.Elapsed.Seconds(), line)
}

// oneLine is s on one line (runs of white space become one space), cut to
// max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
