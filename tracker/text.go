package tracker

import (
	"strings"
	"unicode/utf8"
)

// MaxTextBytes is the most of an issue's text (title, body and comments
// together) that relay reads. Real issues, stack traces and pasted logs
// included, stay well under it; a 28 MB paste would otherwise cost the
// search pipeline tens of seconds and half a gigabyte, and a model's context
// could not hold it anyway. What lies beyond is left out, and CapText says so
// in the text itself.
const MaxTextBytes = 256 << 10

// cutNote ends a text that CapText cut, so that whoever reads the text (a
// model, a report) knows it is incomplete; CutNote finds it again.
const cutNote = "[The issue text was cut here: relay reads at most 256 KiB of an issue (title, body and comments); the rest was left out.]"

// CapText returns s cut to at most MaxTextBytes bytes, at a UTF-8 boundary,
// with a closing note saying that it was cut, and whether it cut anything.
// A text already cut by CapText is returned unchanged.
func CapText(s string) (string, bool) {
	if len(s) <= MaxTextBytes {
		return s, false
	}
	sep := "\n\n"
	keep := MaxTextBytes - len(sep) - len(cutNote)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return strings.TrimRight(s[:keep], " \t\r\n") + sep + cutNote, true
}

// CutNote returns the note CapText put at the end of text, or "" when text
// was not cut.
func CutNote(text string) string {
	if strings.HasSuffix(text, cutNote) {
		return cutNote
	}
	return ""
}

// head is s shortened to just over MaxTextBytes bytes, so that Text does not
// copy a huge part only for CapText to cut it (the split rune at its end is
// cut off too).
func head(s string) string {
	if len(s) > MaxTextBytes {
		return s[:MaxTextBytes+1]
	}
	return s
}

// SplitCut splits a text CapText cut into what was kept and the note ("" when
// text was not cut). Search uses the text alone: the note's words would
// otherwise be searched as the issue's.
func SplitCut(text string) (kept, note string) {
	if note = CutNote(text); note == "" {
		return text, ""
	}
	return strings.TrimRight(strings.TrimSuffix(text, note), "\n"), note
}
