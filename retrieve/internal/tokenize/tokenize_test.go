package tokenize

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"camel", "parseFlags", []string{"parseflags", "pars", "flag"}},
		{"pascal acronym", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"snake", "max_upload_size", []string{"max_upload_size", "max", "upload", "size"}},
		{"digits", "E4012", []string{"e4012"}},
		{"number alone", "status 404", []string{"status", "404"}},
		{"hex stays whole", "0x5e1f", []string{"0x5e1f"}},
		{"prose stems", "Parsing the flags fails", []string{"pars", "flag", "fail"}},
		{"stop words and short", "a b is to of it", nil},
		{"go keywords dropped", "func f() error { return nil }", []string{"error"}},
		{"qualified", "graphdb.Store.Begin", []string{"graphdb", "stor", "begin"}},
		{"unicode letters", "größe straße", []string{"größe", "straße"}},
		{"ies", "retries policies", []string{"retry", "policy"}},
		{"double consonant", "running called", []string{"run", "call"}},
		{"overlong word dropped", "x" + string(make([]byte, 0)) + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ok", []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Text(tt.in)); diff != "" {
				t.Errorf("Text(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTokenizePath(t *testing.T) {
	t.Parallel()
	got := Path("graphdb/embedded/store_test.go")
	want := []string{"graphdb", "embed", "store_test", "stor", "test", "go", "store_test.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Path (-want +got):\n%s", diff)
	}
}

func TestSplitIdent(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"ServeHTTP":      {"Serve", "HTTP"},
		"parseURL2":      {"parse", "URL", "2"},
		"__init__":       {"init"},
		"XMLHttpRequest": {"XML", "Http", "Request"},
		"already":        {"already"},
		"ERR_CONN_RESET": {"ERR", "CONN", "RESET"},
		"utf8DecodeRune": {"utf", "8", "Decode", "Rune"},
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, splitIdent(in)); diff != "" {
			t.Errorf("splitIdent(%q) (-want +got):\n%s", in, diff)
		}
	}
}

// generalTokenize is Tokenize through the general (rune) path only: the
// definition the ASCII fast path must agree with.
func generalTokenize(text string) []string {
	var out []string
	forEachWord(text, func(w string) { out = appendWordTerms(out, w) })
	return out
}

// TestTokenizeFastPathAgrees checks that the allocation-free ASCII path
// yields exactly the terms of the general path, on every Go and markdown
// file of this module (the figures of the eval goldens depend on it) and
// on words that exercise each stemming and splitting rule.
func TestTokenizeFastPathAgrees(t *testing.T) {
	t.Parallel()
	words := "ies policies retries studies ties running called stopped fixes passes buses status analysis " +
		"HTTPServer ServeHTTP parseURL2 __init__ XMLHttpRequest ERR_CONN_RESET utf8DecodeRune 1h30m e4012 0x5e1f " +
		"a_b A1b2C3 ABC abc_ _abc__def x2 RETURN Should should return func FUNC Func_Return ed eds seed sing singing " +
		"größeMax straßeName Éclair fooÜber naïve_value"
	// Words of the longest length indexed: one part per byte.
	texts := []string{words, strings.Repeat("a1", maxWordLen/2), strings.Repeat("aB", maxWordLen/2), strings.Repeat("_x", maxWordLen/2)}
	err := filepath.WalkDir("../../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md")) {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if diff := cmp.Diff(generalTokenize(text), Text(text)); diff != "" {
			t.Fatalf("fast path differs on %.80q (-general +fast):\n%s", text, diff)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"HTTPServer parses", "retries_ies", "utf8DecodeRune größe", "x__Y__z9", "aaaS"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if diff := cmp.Diff(generalTokenize(s), Text(s)); diff != "" {
			t.Errorf("Text(%q) (-general +fast):\n%s", s, diff)
		}
	})
}
