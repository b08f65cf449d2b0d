package egress

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact feeds arbitrary text (what a file, an issue or a model may
// hold) to the filter and to the stdout writer in pieces: no panic, valid
// UTF-8 stays valid, every "[redacted: " added is counted, and the writer
// passes on everything (a redaction never swallows surrounding text).
func FuzzRedact(f *testing.F) {
	for _, c := range canaries {
		f.Add(c.text, 3)
	}
	for _, s := range lookalikes {
		f.Add(s, 1)
	}
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc", 2)
	f.Add("ключ → ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ\nZ2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ==", 4)
	f.Add(`{"a":"api_key: \"f3a9c8e1b2d4a6c8e0f2a4b6c8d0e2f4\"\n"}\`, 5)
	filter := Default()
	f.Fuzz(func(t *testing.T, s string, size int) {
		res := filter.Redact(s)
		if utf8.ValidString(s) && !utf8.ValidString(res.Text) {
			t.Fatalf("valid input, invalid output %q", res.Text)
		}
		if added := strings.Count(res.Text, "[redacted: ") - strings.Count(s, "[redacted: "); added > res.N() {
			t.Fatalf("%d redactions shown, %d counted", added, res.N())
		}
		var out bytes.Buffer
		w := NewWriter(&out, filter)
		size = max(1, size%64+1)
		for rest := s; rest != ""; {
			n := min(size, len(rest))
			if _, err := w.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if s != "" && out.Len() == 0 {
			t.Fatalf("the writer dropped %q", s)
		}
	})
}
