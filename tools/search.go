package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

// SearchName is the name of the search tool.
const SearchName = "search"

//go:embed search.md
var searchDoc string

// SearchParams are the arguments of the search tool.
type SearchParams struct {
	Query    string `json:"query" jsonschema:"words, an identifier, a file name or an error code"`
	Language string `json:"language,omitempty" jsonschema:"comma-separated languages to keep, e.g. go,markdown"`
	Path     string `json:"path,omitempty" jsonschema:"glob over repo-relative paths (** spans folders), or a folder"`
	Kind     string `json:"kind,omitempty" jsonschema:"comma-separated kinds: function, method, type, section, text"`
	Limit    int    `json:"limit,omitempty" jsonschema:"hits to return (default 10, max 30)" schema:"minimum=1,maximum=30"`
	Expand   bool   `json:"expand,omitempty" jsonschema:"attach parent type, sibling methods, imports, callers and callees to the top 5 hits"`
}

var searchSchema = SchemaFor[SearchParams]()

// SearchMeta is the tool result's Meta: counts for logs and eval.
type SearchMeta struct {
	Mode  string   `json:"mode"`
	Hits  int      `json:"hits"`
	Notes []string `json:"notes,omitempty"`
	Files []string `json:"files"` // hit paths in rank order (duplicates removed)
}

// maxSearchHits caps what one tool call returns.
const maxSearchHits = 30

// SearchQuery is one call of the search tool, checked and defaulted.
type SearchQuery struct {
	Query     string
	Languages []string // lower-case, as given
	Path      string
	Kinds     []string
	Limit     int // 1..30
	Expand    bool
}

// SearchAnswer is a Searcher's answer to one call.
type SearchAnswer struct {
	Text  string // the hits rendered for the model
	Mode  string // "lexical", "hybrid", "symbol", ...
	Notes []string
	Paths []string // the path of every hit in rank order (repeats allowed)
}

// Searcher is the search tool's backend; *retrieve.Searcher satisfies it.
// The tool holds this interface rather than the retrieve type because
// retrieve imports tools (for SearchQuery and SearchAnswer), and imports
// point one way.
type Searcher interface {
	SearchTool(ctx context.Context, q SearchQuery) (SearchAnswer, error)
}

// SearchInputError is a Searcher error caused by the call's arguments (an
// unknown language or kind, a bad glob): the model sees its message and can
// fix the call, where any other error ends the run.
type SearchInputError struct{ Err error }

func (e *SearchInputError) Error() string { return e.Err.Error() }
func (e *SearchInputError) Unwrap() error { return e.Err }

// NewSearch returns the read-only search tool over s.
func NewSearch(s Searcher) Tool {
	return New(SearchName, searchDoc, searchSchema, func(ctx context.Context, p SearchParams) (Result, error) {
		if strings.TrimSpace(p.Query) == "" {
			return Errorf("search needs a non-empty query, e.g. {\"query\": \"where are uploads size-limited\"}"), nil
		}
		if p.Limit <= 0 {
			p.Limit = 10
		}
		q := SearchQuery{Query: p.Query, Languages: splitComma(p.Language), Path: p.Path, Kinds: splitComma(p.Kind),
			Limit: min(p.Limit, maxSearchHits), Expand: p.Expand}
		ans, err := s.SearchTool(ctx, q)
		if err != nil {
			if ie, ok := errors.AsType[*SearchInputError](err); ok {
				return Errorf("%v", ie), nil
			}
			if ctx.Err() != nil {
				return Result{}, err
			}
			return Result{}, fmt.Errorf("search %q: %w", p.Query, err)
		}
		meta := SearchMeta{Mode: ans.Mode, Hits: len(ans.Paths), Notes: ans.Notes}
		seen := map[string]bool{}
		for _, p := range ans.Paths {
			if !seen[p] {
				seen[p] = true
				meta.Files = append(meta.Files, p)
			}
		}
		if len(ans.Paths) == 0 {
			r := Errorf("no results for %q; try other words, fewer filters, or grep for an exact string", p.Query)
			r.Meta = meta
			return r, nil
		}
		return Result{Content: ans.Text, Meta: meta}, nil
	})
}

// splitComma splits a comma-separated argument, dropping blanks.
func splitComma(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
