package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// decodeArgs decodes a tool's JSON arguments into in, strictly: the
// arguments must be valid UTF-8 and one JSON object whose keys are exactly
// (case-sensitively) the names of in's fields, each at most once, with
// values of the right types. A model that guesses a name ("path" for
// "file") learns the right one. The returned string is a model-visible
// problem, "" when fine; it quotes at most safefs.MaxEcho bytes of the arguments.
func decodeArgs(name string, schema json.RawMessage, args json.RawMessage, in any) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	fail := func(problem string) string {
		return fmt.Sprintf("invalid arguments for %s: %s. Arguments must be a JSON object matching this schema: %s", name, problem, compactJSON(schema))
	}
	if !utf8.Valid(args) {
		return fail("the arguments are not valid UTF-8 (write other bytes as JSON escapes)")
	}
	if msg := checkKeys(args, argFields(in)); msg != "" {
		return fail(msg)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field == "":
			return fail(fmt.Sprintf("the arguments are a JSON %s, not an object", te.Value))
		case errors.As(err, &te):
			return fail(fmt.Sprintf("field %s must be %s, not a JSON %s", quoteArg(te.Field), jsonType(te.Type.Kind().String()), te.Value))
		case errors.As(err, &se):
			return fail(fmt.Sprintf("not valid JSON at byte %d of %d (%s)", se.Offset, len(args), strings.TrimPrefix(se.Error(), "json: ")))
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return fail(fmt.Sprintf("the JSON ends early, after %d bytes", len(args)))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fail("unknown field " + quoteArg(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)))
		}
		return fail(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return fmt.Sprintf("invalid arguments for %s: extra data after the JSON object. Pass exactly one JSON object matching this schema: %s", name, compactJSON(schema))
	}
	return ""
}

// checkKeys refuses keys of the top-level object that are not exactly one
// of known (encoding/json would match them case-insensitively) and keys
// given twice (it would keep the last). Anything that is not an object is
// left to the decoder to describe.
func checkKeys(args []byte, known map[string]bool) string {
	if known == nil {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := tok.(string)
		switch {
		case !known[key]:
			return unknownField(key, known)
		case seen[key]:
			return fmt.Sprintf("field %s is given twice; give each field once", quoteArg(key))
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}

func unknownField(key string, known map[string]bool) string {
	names := make([]string, 0, len(known))
	for n := range known {
		if strings.EqualFold(n, key) {
			return fmt.Sprintf("unknown field %s (field names are case-sensitive: use %q)", quoteArg(key), n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("unknown field %s (the fields are %s)", quoteArg(key), strings.Join(names, ", "))
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
