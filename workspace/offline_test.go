package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tracker"
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
			rep, err := w.OfflineReport(t.Context(), tracker.CapText(question), opts)
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

// TestOfflineReportCutNote: whether an issue was cut is carried with its
// text (tracker.Text), not re-detected from the words: an issue that
// quotes relay's cut note at its end is not reported as cut (and keeps the
// quote in what is searched), and one that was cut says so once.
func TestOfflineReportCutNote(t *testing.T) {
	t.Parallel()
	cut := tracker.CapText(strings.Repeat("SMS provider timeout retried twice. ", tracker.MaxTextBytes/30))
	if !cut.Cut {
		t.Fatal("the long issue was not cut")
	}
	quoting := tracker.CapText("SMS sent twice; the log ends with\n\n" + cut.Note())
	tests := []struct {
		name    string
		issue   tracker.Text
		wantCut bool
	}{
		{"cut", cut, true},
		{"quotes the note", quoting, false},
	}
	root := sampleRepo(t)
	o, _ := testOptions(t, root)
	w := New(o)
	defer w.Close()
	for _, tt := range tests {
		rep, err := w.OfflineReport(t.Context(), tt.issue, OfflineOptions{IndexFirst: &IndexOptions{}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, note := range rep.Notes {
			if note == cut.Note() {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[tt.wantCut]; n != want {
			t.Errorf("%s: the cut note is in the report's notes %d times, want %d: %q", tt.name, n, want, rep.Notes)
		}
		if !tt.wantCut && !strings.Contains(rep.Input, "relay reads at most 256 KiB") {
			t.Errorf("%s: the issue's own quote of the note was dropped from its text: %q", tt.name, rep.Input)
		}
	}
}
