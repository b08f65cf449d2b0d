package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// decodeArgs decodes a tool's JSON arguments into in. Unknown fields are
// refused so a model that guesses a name ("path" for "file") learns the
// right one. The returned string is a model-visible problem, "" when fine.
func decodeArgs(name string, schema json.RawMessage, args json.RawMessage, in any) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		var te *json.UnmarshalTypeError
		msg := err.Error()
		switch {
		case errors.As(err, &te):
			msg = fmt.Sprintf("field %q must be %s, not a JSON %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)
		case strings.HasPrefix(msg, "json: unknown field "):
			msg = "unknown field " + strings.TrimPrefix(msg, "json: unknown field ")
		}
		return fmt.Sprintf("invalid arguments for %s: %s. Arguments must be a JSON object matching this schema: %s", name, msg, compactJSON(schema))
	}
	if dec.More() {
		return fmt.Sprintf("invalid arguments for %s: extra data after the JSON object. Pass exactly one JSON object matching this schema: %s", name, compactJSON(schema))
	}
	return ""
}

func jsonType(goKind string) string {
	switch goKind {
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return goKind
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// cutLine shortens s to at most max bytes (on a rune boundary), saying how
// much was cut.
func cutLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s … [line cut, %d more bytes]", s[:cut], len(s)-cut)
}

// plural returns "1 match" / "2 matches" style counts.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// cutLineTotal is cutLine for a line of which only head was kept; total is
// the full length in bytes.
func cutLineTotal(head string, total, max int) string {
	if len(head) > max {
		head = head[:max]
	}
	cut := len(head)
	for cut > 0 && cut < len(head) && !utf8.RuneStart(head[cut]) {
		cut--
	}
	for cut > 0 && !utf8.ValidString(head[:cut]) {
		cut--
	}
	return fmt.Sprintf("%s … [line cut, %d more bytes]", head[:cut], total-cut)
}
