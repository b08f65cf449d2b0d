package retrieve

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// advice matches what only a program's user interface may say: a relay
// command, a flag, an environment variable or anything quoted as code.
var advice = regexp.MustCompile("`|\\brelay (index|search|scope|ask|review|serve|eval|graph|mcp)\\b|(^|\\s)--[a-z]|RELAY_|OPENAI_")

// TestErrorsStateTheProblemOnly: each error the package returns matches
// its sentinel with errors.Is and names no command, flag or environment
// variable: the CLI and the bot add the advice that fits where they are.
// So does the report's text for a question nothing matched.
func TestErrorsStateTheProblemOnly(t *testing.T) {
	t.Parallel()
	key := []byte("the key of this user ............")
	tests := []struct {
		name string
		err  func(t *testing.T) error
		is   []error
	}{
		{"no index", func(t *testing.T) error {
			_, err := Open(t.TempDir(), nil, OpenOptions{})
			return err
		}, []error{ErrNoIndex}},
		{"older format", func(t *testing.T) error {
			root, g, idx, _ := builtIndex(t)
			if err := os.WriteFile(idx, oldFormatIndex(t, idx), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(root, g, OpenOptions{})
			return err
		}, []error{ErrNoIndex}},
		{"damaged", func(t *testing.T) error {
			root, g, idx, _ := builtIndex(t)
			if err := os.WriteFile(idx, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(root, g, OpenOptions{})
			return err
		}, []error{ErrIndexDamaged}},
		{"stale", func(t *testing.T) error {
			root, g, idx, _ := builtIndex(t)
			if err := MarkStale(filepath.Dir(idx)); err != nil {
				t.Fatal(err)
			}
			_, err := Open(root, g, OpenOptions{})
			return err
		}, []error{ErrIndexStale, ErrIndexDamaged}},
		{"foreign", func(t *testing.T) error {
			root, g, _, _ := builtIndex(t)
			_, err := Open(root, g, OpenOptions{Key: key})
			return err
		}, []error{ErrIndexForeign, ErrIndexDamaged}},
		{"not written", func(t *testing.T) error {
			root, g, _, _ := builtIndex(t)
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Build(t.Context(), root, g, BuildOptions{Dir: filepath.Join(file, "state")})
			return err
		}, []error{ErrIndexNotWritten}},
		{"embedder without an endpoint", func(t *testing.T) error {
			_, err := (&HTTPEmbedder{Name: "m"}).Embed(t.Context(), []string{"x"}, InputQuery)
			return err
		}, []error{ErrEmbedNotConfigured}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.err(t)
			if err == nil {
				t.Fatal("no error")
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("error %q does not match %q", err, target)
				}
			}
			if m := advice.FindString(err.Error()); m != "" {
				t.Errorf("error %q names a command (%q): advice is for the program that shows it", err, m)
			}
		})
	}
	if md := (Report{Question: "anything"}).Markdown(); advice.MatchString(md) {
		t.Errorf("report for a question nothing matched names a command:\n%s", md)
	}
}
