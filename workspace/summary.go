package workspace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
)

// SummaryText writes what an Index run did as text for a person: the
// graph's summary (index.Summary: files, languages, nodes, edges, phases,
// what was not indexed and the errors) and the search index's
// (retrieve.BuildStats and the files it did not read).
type SummaryText struct {
	// MaxErrors is how many errors and files not indexed each list
	// shows; the rest are counted.
	MaxErrors int
	// More is the advice after a list cut at MaxErrors, e.g. how to list
	// more; "" says only how many more there are.
	More string
	// Budgets name the settings of index.Options' per-file budgets by
	// field name (index.Diagnostic.Limit) in the messages that met one;
	// a field without a name keeps index's "Options.Field".
	Budgets map[string]string
}

// Graph writes the summary of the code graph of root.
func (t SummaryText) Graph(w io.Writer, root string, s index.Summary) {
	if s.Unchanged {
		fmt.Fprintf(w, "Index of %s is up to date (%d files checked in %s).\n", root, s.Files, s.Duration.Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "Indexed %s in %s: %d files (%d changed, %d deleted).\n",
			root, s.Duration.Round(time.Millisecond), s.Files, s.Changed, s.Deleted)
	}
	langs := slices.Sorted(maps.Keys(s.Languages))
	for _, l := range langs {
		fmt.Fprintf(w, "%s: %d files, %d %s re-extracted.\n", l, s.Languages[l].Files, s.Languages[l].Units, s.Languages[l].Unit)
	}
	fmt.Fprintf(w, "Languages: %s\n", languagesLine(s, langs))
	if n := s.Languages["Go"].SyntaxOnly; n > 0 {
		fmt.Fprintf(w, "Go: %d files outside every module (no go.mod above them) are indexed by syntax alone: no calls, types or implementations; add a go.mod (go mod init) to type-check them.\n", n)
	}
	fmt.Fprintf(w, "Nodes: %d (%s)\n", s.Stats.TotalNodes(), kindCounts(s.Stats.Nodes, graphdb.NodeKinds))
	fmt.Fprintf(w, "Edges: %d (%s)\n", s.Stats.TotalEdges(), kindCounts(s.Stats.Edges, graphdb.EdgeKinds))
	if len(s.Phases) > 0 {
		var parts []string
		for _, n := range slices.Sorted(maps.Keys(s.Phases)) {
			parts = append(parts, fmt.Sprintf("%s %s", n, s.Phases[n].Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "Time: %s\n", strings.Join(parts, ", "))
	}
	t.notes(w, s.Notes)
	if len(s.Errors) == 0 {
		fmt.Fprintln(w, "Errors: none")
		return
	}
	fmt.Fprintf(w, "Errors: %d (packages that failed to type-check are indexed as far as possible; modules go list refused and packages not type-checked, from syntax)\n", len(s.Errors))
	t.list(w, len(s.Errors), func(i int) string { return t.errorLine(s.Errors[i]) })
}

// Search writes the summary of the search index, and lists what it did
// not read, leaving out the paths the graph's summary (graphNotes)
// already listed.
func (t SummaryText) Search(w io.Writer, bs retrieve.BuildStats, graphNotes []index.Diagnostic) {
	fmt.Fprintf(w, "Search index: %d chunks from %d files (%d changed, %d reused, %d removed) in %s",
		bs.Chunks, bs.Files, bs.Changed, bs.Reused, bs.Removed, bs.Duration.Round(time.Millisecond))
	if bs.Embedded+bs.EmbedCached > 0 {
		fmt.Fprintf(w, "; %d embeddings computed, %d cached", bs.Embedded, bs.EmbedCached)
	}
	fmt.Fprintln(w, ".")
	seen := map[string]bool{}
	for _, n := range graphNotes {
		seen[n.Pos] = true
	}
	var rest []string
	for _, s := range bs.Skipped {
		if p, _, _ := strings.Cut(s, ": "); !seen[p] {
			rest = append(rest, s)
		}
	}
	if len(rest) == 0 {
		return
	}
	fmt.Fprintf(w, "Not in the search index: %d\n", len(rest))
	t.list(w, len(rest), func(i int) string { return rest[i] })
}

// notes lists the files and directories that were not indexed.
func (t SummaryText) notes(w io.Writer, notes []index.Diagnostic) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(w, "Not indexed: %d (not regular files, links leading outside the repository, link loops, paths too long, languages this build cannot parse, files over the size limit or minified)\n", len(notes))
	t.list(w, len(notes), func(i int) string {
		if d := notes[i]; d.Pos != "" {
			return d.Pos + ": " + t.withBudget(d)
		}
		return notes[i].Msg // a whole language this build cannot parse
	})
}

// list writes the first MaxErrors of n lines, indented, and how many more
// there are.
func (t SummaryText) list(w io.Writer, n int, line func(int) string) {
	for i := range n {
		if i == t.MaxErrors {
			more := ""
			if t.More != "" {
				more = " (" + t.More + ")"
			}
			fmt.Fprintf(w, "  … %d more%s\n", n-t.MaxErrors, more)
			break
		}
		fmt.Fprintf(w, "  %s\n", line(i))
	}
}

// errorLine renders one error: "pos: msg (package)", leaving out what
// is not known (a module go list refused has no package, a package not
// type-checked no position).
func (t SummaryText) errorLine(d index.Diagnostic) string {
	s := t.withBudget(d)
	if d.Pos != "" {
		s = d.Pos + ": " + s
	}
	if d.Package != "" {
		s += " (" + d.Package + ")"
	}
	return s
}

// withBudget is d's message naming the setting of the budget it met,
// where the index names the Options field.
func (t SummaryText) withBudget(d index.Diagnostic) string {
	if name, ok := t.Budgets[d.Limit]; ok {
		return strings.ReplaceAll(d.Msg, "Options."+d.Limit, name)
	}
	return d.Msg
}

// kindCounts renders "function 12, type 3" in the order of kinds, skipping zeros.
func kindCounts[K ~string](m map[K]int, kinds []K) string {
	var parts []string
	for _, k := range kinds {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// languagesLine lists the languages indexed (langs, sorted), with their
// file counts.
func languagesLine(s index.Summary, langs []string) string {
	var parts []string
	for _, l := range langs {
		parts = append(parts, fmt.Sprintf("%s (%d files)", l, s.Languages[l].Files))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
