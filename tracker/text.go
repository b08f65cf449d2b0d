package tracker

import (
	"io"
	"strings"
	"unicode/utf8"
)

// MaxTextBytes is the most of an issue's text (title, body and comments
// together) that relay reads. Real issues, stack traces and pasted logs
// included, stay well under it; a 28 MB paste would otherwise cost the
// search pipeline tens of seconds and half a gigabyte, and a model's context
// could not hold it anyway. What lies beyond is left out, and Text says so.
const MaxTextBytes = 256 << 10

// cutNote ends a cut text where a reader must see that it is incomplete
// (Text.String: the model's input, the report's notes).
const cutNote = "[The issue text was cut here: relay reads at most 256 KiB of an issue (title, body and comments); the rest was left out.]"

// Text is an issue's text as relay reads it: Body at most MaxTextBytes
// (minus room for the note), and whether anything was left out. The note
// is not part of Body, so search reads the issue's own words only, and
// whether the text was cut is carried, never re-detected from the text.
type Text struct {
	Body string
	Cut  bool
}

// String is the text a model reads: Body, then, when it was cut, a
// closing note saying so.
func (t Text) String() string {
	if !t.Cut {
		return t.Body
	}
	return t.Body + "\n\n" + cutNote
}

// Note is the note saying that the text was cut, or "" when it was not.
func (t Text) Note() string {
	if !t.Cut {
		return ""
	}
	return cutNote
}

// CapText cuts s at a UTF-8 boundary so that its String (with the note)
// holds at most MaxTextBytes bytes.
func CapText(s string) Text {
	if len(s) <= MaxTextBytes {
		return Text{Body: s}
	}
	keep := MaxTextBytes - len("\n\n") - len(cutNote)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return Text{Body: strings.TrimRight(s[:keep], " \t\r\n"), Cut: true}
}

// ReadHead reads r up to one byte past MaxTextBytes: enough for CapText
// to see that a text is too long, without holding a huge paste.
func ReadHead(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, MaxTextBytes+1))
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
