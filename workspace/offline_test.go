package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/retrieve"
)

// TestOfflineReport: the offline report indexes a repository without an
// index first when asked (relay ask, scope and batch), ranks its files
// with the graph, honours the report's options (here, how many files and
// symbols to list) and publishes the markdown and the question; asked not
// to index (the bot, whose jobs index first), it searches without a graph.
func TestOfflineReport(t *testing.T) {
	t.Parallel()
	const question = "Customers receive the same SMS twice when the provider times out"
	tests := []struct {
		name       string
		indexFirst bool
		wantNotice string
	}{
		{"index first", true, "indexing it first"},
		{"no index, search alone", false, "no usable search index yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := sampleRepo(t)
			o, said := testOptions(t, root)
			w := New(o)
			defer w.Close()
			opts := OfflineOptions{ReportOptions: retrieve.ReportOptions{Files: 2, Symbols: 3}}
			if tt.indexFirst {
				opts.IndexFirst = &IndexOptions{}
			}
			rep, err := w.OfflineReport(t.Context(), question, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Files) == 0 || len(rep.Files) > 2 || len(rep.Symbols) > 3 {
				t.Errorf("%d files, %d symbols; want 1–2 files and at most 3 symbols (ReportOptions)", len(rep.Files), len(rep.Symbols))
			}
			if rep.Question != question || rep.Input != question || !strings.Contains(rep.Markdown, rep.Files[0].Path) {
				t.Errorf("question %q, input %q, markdown without the first file %s:\n%s", rep.Question, rep.Input, rep.Files[0].Path, rep.Markdown)
			}
			if !strings.Contains(said.String(), tt.wantNotice) {
				t.Errorf("notices %q; want %q", said, tt.wantNotice)
			}
			_, err = os.Stat(filepath.Join(root, ".relay", "graph.db"))
			if graph := err == nil; graph != tt.indexFirst {
				t.Errorf("a graph in the store: %v; want %v", graph, tt.indexFirst)
			}
		})
	}
}
