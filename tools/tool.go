package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Tool is one capability offered to a model.
type Tool interface {
	Name() string            // snake_case; also a const (GrepName = "grep")
	Description() string     // embedded <name>.md
	Schema() json.RawMessage // JSON Schema of the arguments object
	Call(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what a tool call produced.
type Result struct {
	Content string // what the model sees, already truncated
	IsError bool   // model-visible failure: bad args, no match, missing file
	Meta    any    // counts/truncation for logs and eval; never sent to the model
}

// ReadOnlyTool is implemented by tools that never modify anything; only those
// may run concurrently and be given to retriever sub-agents.
type ReadOnlyTool interface {
	ReadOnly() bool
}

// IsReadOnly reports whether t declares itself read-only.
func IsReadOnly(t Tool) bool {
	ro, ok := t.(ReadOnlyTool)
	return ok && ro.ReadOnly()
}

// Errorf builds a model-visible error result.
func Errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Registry holds tools by name.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry holding ts. It panics on a duplicate or
// empty name: that is a wiring bug, not an input error.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers t; it panics on a duplicate or empty name.
func (r *Registry) Add(t Tool) {
	name := t.Name()
	if name == "" {
		panic("tools: tool with empty name")
	}
	if _, dup := r.tools[name]; dup {
		panic("tools: duplicate tool " + name)
	}
	r.tools[name] = t
}

// Get returns the tool with the given name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Tools returns the tools sorted by name, so requests built from them are
// byte-stable (replayable).
func (r *Registry) Tools() []Tool {
	out := make([]Tool, 0, len(r.tools))
	for _, n := range r.Names() {
		out = append(out, r.tools[n])
	}
	return out
}

// ReadOnly returns a registry with only the read-only tools.
func (r *Registry) ReadOnly() *Registry {
	out := NewRegistry()
	for _, t := range r.Tools() {
		if IsReadOnly(t) {
			out.Add(t)
		}
	}
	return out
}

// funcTool is a Tool built from a typed function by New.
type funcTool[In any] struct {
	name, desc string
	schema     json.RawMessage
	readOnly   bool
	fn         func(context.Context, In) (Result, error)
}

// New builds a read-only Tool whose arguments are decoded into In before fn
// runs, as strictly as the built-in tools decode theirs (unknown or
// repeated fields refused); arguments that do not decode come back as an
// error Result naming the problem and the schema. schema is the JSON
// Schema of In; nil means SchemaFor[In]() when In is a struct.
func New[In any](name, desc string, schema json.RawMessage, fn func(context.Context, In) (Result, error)) Tool {
	if schema == nil {
		schema = SchemaFor[In]()
	}
	return &funcTool[In]{name: name, desc: desc, schema: schema, readOnly: true, fn: fn}
}

func (t *funcTool[In]) Name() string            { return t.name }
func (t *funcTool[In]) Description() string     { return t.desc }
func (t *funcTool[In]) Schema() json.RawMessage { return t.schema }
func (t *funcTool[In]) ReadOnly() bool          { return t.readOnly }

func (t *funcTool[In]) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var in In
	if msg := decodeArgs(t.name, t.schema, args, &in); msg != "" {
		return Errorf("%s", msg), nil
	}
	return t.fn(ctx, in)
}
