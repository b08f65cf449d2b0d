package tools

import (
	"fmt"
	"slices"
	"strings"
)

// names are the tools ByName builds, sorted.
var names = []string{GlobName, GraphName, GrepName, ReadName}

// examples are one valid argument object for each tool, for messages that
// show how to call it.
var examples = map[string]string{
	GrepName:  `{"pattern": "TODO", "include": "*.go"}`,
	GlobName:  `{"pattern": "**/*_test.go"}`,
	ReadName:  `{"file": "README.md", "num_lines": 40}`,
	GraphName: `{"operation": "callers", "target": "Server.Serve"}`,
}

// Names are the tools ByName builds, sorted.
func Names() []string { return slices.Clone(names) }

// IsName reports whether ByName builds a tool of that name.
func IsName(name string) bool { return slices.Contains(names, name) }

// Example is one valid JSON argument object of the named tool ("" for an
// unknown name).
func Example(name string) string { return examples[name] }

// ByName builds just the named tool, so that running one tool needs only what
// that tool needs (read works without rg or fd).
func ByName(name string, opts Options) (Tool, error) {
	switch name {
	case GrepName:
		return NewGrep(opts)
	case GlobName:
		return NewGlob(opts)
	case ReadName:
		return NewRead(opts)
	case GraphName:
		return NewGraph(opts)
	}
	return nil, fmt.Errorf("unknown tool %q; valid tools: %s", name, strings.Join(names, ", "))
}
