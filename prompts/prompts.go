package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"text/template"
)

//go:embed *.md
var files embed.FS

// Template names, one per embedded <name>.md file.
const (
	Retriever  = "retriever"  // system prompt of a retriever sub-agent; data RetrieverData
	Synthesize = "synthesize" // user message sent when a retriever hits its soft step cap; no data
	Planner    = "planner"    // system prompt of the planner; data PlannerData
	Gap        = "gap"        // system prompt of the gap detector (scoping report); no data
	Answer     = "answer"     // system prompt of the answer writer for relay ask; no data
	Localize   = "localize"   // the question relay eval --agent asks to localize an issue; data LocalizeData
)

// LocalizeData fills the localize template.
type LocalizeData struct {
	Problem string // the issue text
}

// ToolInfo describes one tool offered to a retriever.
type ToolInfo struct {
	Name        string
	Description string
}

// RetrieverData is the data of the retriever template.
type RetrieverData struct {
	Tools []ToolInfo
}

// PlannerData is the data of the planner template.
type PlannerData struct {
	Question    bool // true for relay ask (a question), false for an issue to scope
	MaxParallel int  // how many retrievals run at once
	MaxSteps    int  // the planner's step budget
}

var (
	parseOnce sync.Once
	parsed    map[string]*template.Template
	parseErr  error
)

func load() (map[string]*template.Template, error) {
	parseOnce.Do(func() {
		parsed = map[string]*template.Template{}
		entries, err := fs.ReadDir(files, ".")
		if err != nil {
			parseErr = err
			return
		}
		for _, e := range entries {
			body, err := files.ReadFile(e.Name())
			if err != nil {
				parseErr = err
				return
			}
			name := strings.TrimSuffix(e.Name(), ".md")
			t, err := template.New(name).Option("missingkey=error").Parse(stripHeader(string(body)))
			if err != nil {
				parseErr = fmt.Errorf("parse prompt %s: %w", e.Name(), err)
				return
			}
			parsed[name] = t
		}
	})
	return parsed, parseErr
}

// stripHeader drops the leading {{/* … */}} comment block that documents a
// template's data, so it never reaches the model.
func stripHeader(s string) string {
	if strings.HasPrefix(s, "{{/*") {
		if i := strings.Index(s, "*/}}"); i >= 0 {
			s = s[i+len("*/}}"):]
		}
	}
	return s
}

// Names returns the names of all embedded templates, sorted.
func Names() []string {
	ts, _ := load()
	out := make([]string, 0, len(ts))
	for n := range ts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Render executes the template name with data and returns the text with
// surrounding white space trimmed.
func Render(name string, data any) (string, error) {
	ts, err := load()
	if err != nil {
		return "", err
	}
	t, ok := ts[name]
	if !ok {
		return "", fmt.Errorf("unknown prompt %q (have %s)", name, strings.Join(Names(), ", "))
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return strings.TrimSpace(buf.String()), nil
}

// MustRender is Render for templates and data fixed at compile time; it
// panics on error, which the package tests rule out for every template.
func MustRender(name string, data any) string {
	s, err := Render(name, data)
	if err != nil {
		panic(err)
	}
	return s
}
