package retrieve

import (
	"context"
	"fmt"
	"strings"

	"github.com/relayhq/relay/tools"
)

// SearchTool answers one call of the agents' search tool (tools.NewSearch):
// *Searcher satisfies tools.Searcher. A filter the query cannot use comes
// back as a *tools.SearchInputError, which the model sees.
func (s *Searcher) SearchTool(ctx context.Context, q tools.SearchQuery) (tools.SearchAnswer, error) {
	opts := SearchOptions{Limit: q.Limit, Expand: q.Expand, Filter: Filter{Languages: q.Languages, Path: q.Path, Kinds: q.Kinds}}
	if err := opts.Filter.Validate(); err != nil {
		return tools.SearchAnswer{}, &tools.SearchInputError{Err: err}
	}
	res, err := s.Search(ctx, q.Query, opts)
	if err != nil {
		return tools.SearchAnswer{}, err
	}
	ans := tools.SearchAnswer{Text: res.Text(), Mode: res.Mode, Notes: res.Notes}
	for _, h := range res.Hits {
		ans.Paths = append(ans.Paths, h.Path)
	}
	return ans, nil
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
				fmt.Fprintf(&b, "   sibling: %s (%s)\n", ShortSig(s), s.Location)
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
