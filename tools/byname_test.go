package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestByName(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{GlobName, GraphName, GrepName, ReadName}, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			if !IsName(name) {
				t.Errorf("IsName(%q) = false", name)
			}
			if !json.Valid([]byte(Example(name))) || Example(name) == "" {
				t.Errorf("Example(%q) = %q, want a JSON object", name, Example(name))
			}
			if name == GrepName || name == GlobName {
				needTools(t)
			}
			tool, err := ByName(name, Options{Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name() != name {
				t.Errorf("ByName(%q).Name() = %q", name, tool.Name())
			}
		})
	}
	if IsName("search") || Example("search") != "" {
		t.Error("search is not a tool ByName builds")
	}
	if _, err := ByName("shell", Options{Root: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `unknown tool "shell"; valid tools: glob, graph, grep, read`) {
		t.Errorf("ByName(shell) error = %v", err)
	}
}
