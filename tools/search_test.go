package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeSearcher records the query it got and answers with ans or err.
type fakeSearcher struct {
	got SearchQuery
	ans SearchAnswer
	err error
}

func (f *fakeSearcher) SearchTool(_ context.Context, q SearchQuery) (SearchAnswer, error) {
	f.got = q
	return f.ans, f.err
}

// TestSearchContract checks the tool's side of the Searcher seam: argument
// defaults and splitting, the model-visible input error, the run-ending
// infrastructure error, and the Meta built from the answer. The tool over
// the real retrieve.Searcher is tested in package retrieve.
func TestSearchContract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      string
		ans       SearchAnswer
		err       error
		wantQuery SearchQuery
		isError   bool
		goErr     bool
		want      string // substring of the content
		wantMeta  *SearchMeta
	}{
		{name: "defaults and lists", args: `{"query": "upload limit", "language": "go, markdown", "kind": "function"}`,
			ans:       SearchAnswer{Text: "2 result(s)", Mode: "lexical", Paths: []string{"a.go", "a.go", "b.md"}},
			wantQuery: SearchQuery{Query: "upload limit", Languages: []string{"go", "markdown"}, Kinds: []string{"function"}, Limit: 10},
			want:      "2 result(s)", wantMeta: &SearchMeta{Mode: "lexical", Hits: 3, Files: []string{"a.go", "b.md"}}},
		{name: "limit capped", args: `{"query": "x", "limit": 30, "expand": true, "path": "server/**"}`,
			ans:       SearchAnswer{Text: "ok", Paths: []string{"a.go"}},
			wantQuery: SearchQuery{Query: "x", Path: "server/**", Limit: 30, Expand: true}, want: "ok"},
		{name: "no hits", args: `{"query": "nothing"}`, ans: SearchAnswer{Mode: "lexical"},
			wantQuery: SearchQuery{Query: "nothing", Limit: 10}, isError: true, want: "no results for",
			wantMeta: &SearchMeta{Mode: "lexical"}},
		{name: "input error goes to the model", args: `{"query": "x", "language": "cobol"}`,
			err:       &SearchInputError{Err: errors.New(`unknown language "cobol"`)},
			wantQuery: SearchQuery{Query: "x", Languages: []string{"cobol"}, Limit: 10}, isError: true, want: `unknown language "cobol"`},
		{name: "other errors end the run", args: `{"query": "x"}`, err: errors.New("index gone"),
			wantQuery: SearchQuery{Query: "x", Limit: 10}, goErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeSearcher{ans: tt.ans, err: tt.err}
			res, err := NewSearch(f).Call(t.Context(), json.RawMessage(tt.args))
			if tt.goErr {
				if err == nil || !strings.Contains(err.Error(), "index gone") {
					t.Fatalf("Call = %+v, %v; want the backend's error", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantQuery, f.got); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			if res.IsError != tt.isError || !strings.Contains(res.Content, tt.want) {
				t.Errorf("result = %+v; want IsError=%v and %q", res, tt.isError, tt.want)
			}
			if tt.wantMeta != nil {
				if diff := cmp.Diff(*tt.wantMeta, res.Meta); diff != "" {
					t.Errorf("meta (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSearchRefusesBadArguments: an empty query and unknown fields never
// reach the backend.
func TestSearchRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range []string{`{"query": "  "}`, `{"query": "x", "folder": "a"}`} {
		f := &fakeSearcher{}
		res, err := NewSearch(f).Call(t.Context(), json.RawMessage(args))
		if err != nil || !res.IsError || f.got.Query != "" {
			t.Errorf("%s: Call = %+v, %v (backend saw %q); want an error result before the backend", args, res, err, f.got.Query)
		}
	}
}
