package workspace

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
)

// TestSummaryText: the summaries of an Index run list what was not
// indexed and the errors up to MaxErrors, with More after a cut list, name
// the budgets' settings, and leave out of the search index's list what
// the graph's already named.
func TestSummaryText(t *testing.T) {
	t.Parallel()
	sum := index.Summary{
		Files: 3, Changed: 2, Duration: 1500 * time.Millisecond,
		Stats: graphdb.Stats{Nodes: map[graphdb.NodeKind]int{graphdb.NodeKinds[0]: 4}},
		Languages: map[string]index.LanguageSummary{
			"Python": {Files: 1, Units: 1, Unit: "modules"},
			"Go":     {Files: 2, Units: 1, Unit: "packages", SyntaxOnly: 1},
		},
		Phases: map[string]time.Duration{"scan": time.Millisecond, "list": 2 * time.Millisecond},
		Notes:  []index.Diagnostic{{Pos: "big.py", Msg: "over Options.MaxFileBytes", Limit: "MaxFileBytes"}, {Msg: "Java: not in this build"}},
		Errors: []index.Diagnostic{{Pos: "a.go:1:1", Msg: "x undefined", Package: "m/a"}, {Msg: "go.mod refused"}},
	}
	bs := retrieve.BuildStats{Chunks: 7, Files: 3, Changed: 3, Skipped: []string{"big.py: too big", "blob.bin: binary"}}
	graphHead := "Indexed /r in 1.5s: 3 files (2 changed, 0 deleted).\n" +
		"Go: 2 files, 1 packages re-extracted.\n" +
		"Python: 1 files, 1 modules re-extracted.\n" +
		"Languages: Go (2 files), Python (1 files)\n" +
		"Go: 1 files outside every module (no go.mod above them) are indexed by syntax alone: no calls, types or implementations; add a go.mod (go mod init) to type-check them.\n" +
		"Nodes: 4 (" + string(graphdb.NodeKinds[0]) + " 4)\n" +
		"Edges: 0 (none)\n" +
		"Time: list 2ms, scan 1ms\n" +
		"Not indexed: 2 (not regular files, links leading outside the repository, link loops, paths too long, languages this build cannot parse, files over the size limit or minified)\n"
	tests := []struct {
		name string
		text SummaryText
		want string
	}{
		{"all listed, budgets named", SummaryText{MaxErrors: 5, More: "ask for more", Budgets: map[string]string{"MaxFileBytes": "the size limit"}},
			graphHead + "  big.py: over the size limit\n  Java: not in this build\n" +
				"Errors: 2 (packages that failed to type-check are indexed as far as possible; modules go list refused and packages not type-checked, from syntax)\n" +
				"  a.go:1:1: x undefined (m/a)\n  go.mod refused\n" +
				"Search index: 7 chunks from 3 files (3 changed, 0 reused, 0 removed) in 0s.\n" +
				"Not in the search index: 1\n  blob.bin: binary\n"},
		{"cut at one, with advice", SummaryText{MaxErrors: 1, More: "ask for more"},
			graphHead + "  big.py: over Options.MaxFileBytes\n  … 1 more (ask for more)\n" +
				"Errors: 2 (packages that failed to type-check are indexed as far as possible; modules go list refused and packages not type-checked, from syntax)\n" +
				"  a.go:1:1: x undefined (m/a)\n  … 1 more (ask for more)\n" +
				"Search index: 7 chunks from 3 files (3 changed, 0 reused, 0 removed) in 0s.\n" +
				"Not in the search index: 1\n  blob.bin: binary\n"},
		{"cut at none, no advice", SummaryText{},
			graphHead + "  … 2 more\n" +
				"Errors: 2 (packages that failed to type-check are indexed as far as possible; modules go list refused and packages not type-checked, from syntax)\n" +
				"  … 2 more\n" +
				"Search index: 7 chunks from 3 files (3 changed, 0 reused, 0 removed) in 0s.\n" +
				"Not in the search index: 1\n  … 1 more\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		tt.text.Graph(&b, "/r", sum)
		tt.text.Search(&b, bs, sum.Notes)
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSummaryTextUnchanged: an unchanged run with nothing wrong says so.
func TestSummaryTextUnchanged(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	SummaryText{}.Graph(&b, "/r", index.Summary{Unchanged: true, Files: 2, Duration: time.Millisecond})
	want := "Index of /r is up to date (2 files checked in 1ms).\nLanguages: none\nNodes: 0 (none)\nEdges: 0 (none)\nErrors: none\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
