package gitlab

import (
	"strings"
)

// zwj, shown as nothing, follows the "!" of a merge request reference so
// that GitLab does not link it (nor note "mentioned in" on the merge
// request), as internal/publish does for "@" and "#".
const zwj = "\u200d"

// inert makes a report safe to post as a GitLab note: a line outside a
// fenced code block whose first character is "/" would run as a quick
// action (/close, /label, /assign …) with the bot's role, so its "/" is
// escaped ("\/", shown as "/"); a merge request reference ("!12",
// "group/name!12") outside code gets a zero-width joiner after its "!".
//
// DESIGN: GitLab finds quick actions in the raw text line by line,
// skipping fenced code blocks, so a line scanner with the same fences
// (``` and ~~~, three or more) is the matching rule; no Go library
// implements GitLab's extractor. internal/publish has already neutralised
// mentions, issue references and HTML, which GitLab shares with GitHub.
func inert(body string) string {
	lines := strings.SplitAfter(body, "\n")
	var fence string // the open fence's marker, "" outside one
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " \t")
		if m := fenceMarker(trimmed); m != "" {
			switch {
			case fence == "":
				fence = m
			case strings.HasPrefix(m, fence) && strings.TrimSpace(trimmed[len(m):]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if strings.HasPrefix(trimmed, "/") {
			l = l[:len(l)-len(trimmed)] + `\` + trimmed
		}
		lines[i] = mergeRequestRefs(l)
	}
	return strings.Join(lines, "")
}

// fenceMarker returns the run of three or more backticks or tildes that
// starts line, or "".
func fenceMarker(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// mergeRequestRefs puts a zero-width joiner after each "!" followed by a
// digit outside inline code spans of line.
func mergeRequestRefs(line string) string {
	var b strings.Builder
	inCode := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		b.WriteByte(c)
		switch {
		case c == '`':
			inCode = !inCode
		case c == '!' && !inCode && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9':
			b.WriteString(zwj)
		}
	}
	return b.String()
}
