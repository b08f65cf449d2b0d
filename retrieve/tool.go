package retrieve

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/relayhq/relay/tools"
)

// SearchToolName is the name of the search tool.
const SearchToolName = "search"

//go:embed search_tool.md
var searchToolDoc string

// SearchParams are the arguments of the search tool.
type SearchParams struct {
	Query    string `json:"query" jsonschema:"words, an identifier, a file name or an error code"`
	Language string `json:"language,omitempty" jsonschema:"comma-separated languages to keep, e.g. go,markdown"`
	Path     string `json:"path,omitempty" jsonschema:"glob over repo-relative paths (** spans folders), or a folder"`
	Kind     string `json:"kind,omitempty" jsonschema:"comma-separated kinds: function, method, type, section, text"`
	Limit    int    `json:"limit,omitempty" jsonschema:"hits to return (default 10, max 30)" schema:"minimum=1,maximum=30"`
	Expand   bool   `json:"expand,omitempty" jsonschema:"attach parent type, sibling methods, imports, callers and callees to the top 5 hits"`
}

var searchSchema = tools.SchemaFor[SearchParams]()

// SearchMeta is the tool result's Meta: counts for logs and eval.
type SearchMeta struct {
	Mode  string   `json:"mode"`
	Hits  int      `json:"hits"`
	Notes []string `json:"notes,omitempty"`
	Files []string `json:"files"` // hit paths in rank order (duplicates removed)
}

// maxToolHits caps what one tool call returns.
const maxToolHits = 30

// NewSearchTool returns the read-only search tool over s.
func NewSearchTool(s *Searcher) tools.Tool {
	return tools.New(SearchToolName, searchToolDoc, searchSchema, func(ctx context.Context, p SearchParams) (tools.Result, error) {
		if strings.TrimSpace(p.Query) == "" {
			return tools.Errorf("search needs a non-empty query, e.g. {\"query\": \"where are uploads size-limited\"}"), nil
		}
		if p.Limit <= 0 {
			p.Limit = 10
		}
		p.Limit = min(p.Limit, maxToolHits)
		opts := SearchOptions{Limit: p.Limit, Expand: p.Expand, Filter: Filter{Languages: splitList(p.Language), Path: p.Path, Kinds: splitList(p.Kind)}}
		if err := opts.Filter.Validate(); err != nil {
			return tools.Errorf("%v", err), nil
		}
		res, err := s.Search(ctx, p.Query, opts)
		if err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, err
			}
			return tools.Result{}, fmt.Errorf("search %q: %w", p.Query, err)
		}
		meta := SearchMeta{Mode: res.Mode, Hits: len(res.Hits), Notes: res.Notes}
		seen := map[string]bool{}
		for _, h := range res.Hits {
			if !seen[h.Path] {
				seen[h.Path] = true
				meta.Files = append(meta.Files, h.Path)
			}
		}
		if len(res.Hits) == 0 {
			r := tools.Errorf("no results for %q; try other words, fewer filters, or grep for an exact string", p.Query)
			r.Meta = meta
			return r, nil
		}
		return tools.Result{Content: res.Text(), Meta: meta}, nil
	})
}

// Text renders results for a model or a terminal: one block per hit with
// its reasons and snippet lines.
func (r Results) Text() string {
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "%d result(s) for %q (%s search)\n", len(r.Hits), r.Query, r.Mode)
	for _, h := range r.Hits {
		name := h.Name
		if h.Loc != "" {
			name = h.Loc
		}
		fmt.Fprintf(&b, "\n%d. %s %s %s — %s\n", h.Rank, h.Location(), h.Kind, name, strings.Join(h.Why, "; "))
		b.WriteString(h.Snippet)
		if c := h.Context; c != nil {
			if c.Parent != nil {
				fmt.Fprintf(&b, "   parent: %s (%s)\n", c.Parent.Name, c.Parent.Location)
			}
			for _, s := range c.Siblings {
				fmt.Fprintf(&b, "   sibling: %s (%s)\n", shortSig(s), s.Location)
			}
			for _, s := range c.Callers {
				fmt.Fprintf(&b, "   called by: %s (%s)\n", s.QName, s.Location)
			}
			for _, s := range c.Callees {
				fmt.Fprintf(&b, "   calls: %s (%s)\n", s.QName, s.Location)
			}
			if len(c.Imports) > 0 {
				fmt.Fprintf(&b, "   imports: %s\n", strings.Join(c.Imports, ", "))
			}
		}
	}
	return b.String()
}
