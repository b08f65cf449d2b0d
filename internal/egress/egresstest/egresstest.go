// Package egresstest holds the canary repository of relay's egress tests: a
// small SMS service with committed secrets of every common format (.env,
// YAML, a Go constant, an SSH key — all FAKE values) and look-alikes that
// must survive the filter (hashes, UUIDs, base64 fixtures).
package egresstest

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

//go:embed canary.txtar
var archive []byte

// Canary is one planted secret: the rule family it stands for and its value.
type Canary struct {
	Kind, Value string
}

// Canaries returns the planted secrets, as the archive's header lists them.
func Canaries() []Canary {
	var out []Canary
	for _, line := range headerLines("canary ") {
		kind, value, _ := strings.Cut(line, " ")
		out = append(out, Canary{Kind: kind, Value: value})
	}
	return out
}

// Lookalikes returns values that look like secrets but are not; the filter
// must leave them alone.
func Lookalikes() []string { return headerLines("survive ") }

func headerLines(prefix string) []string {
	var out []string
	for _, line := range strings.Split(string(txtar.Parse(archive).Comment), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			out = append(out, v)
		}
	}
	return out
}

// Files returns the repository's files by repository-relative path.
func Files() map[string]string {
	out := map[string]string{}
	for _, f := range txtar.Parse(archive).Files {
		out[f.Name] = string(f.Data)
	}
	return out
}

// Repo writes the canary repository to a new temporary directory and
// returns its path.
func Repo(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range Files() {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Leaks returns the canaries whose value occurs in text.
func Leaks(text string) []Canary {
	var out []Canary
	for _, c := range Canaries() {
		if strings.Contains(text, c.Value) {
			out = append(out, c)
		}
	}
	return out
}
