package eval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// DESIGN: line-level figures. The gold lines of a fix are the lines of the
// pre-fix files a reader must see to make it: every line the patch deletes
// or changes (old-side numbers), and for a run of added lines that replaces
// nothing, the line it is inserted after (the line before it, or the first
// line at the top of a file). Only gold files count. A prediction names
// line spans in reading order (Prediction.Spans); at a budget of B lines
// the first B lines of that list are shown, and line recall@B is the share
// of gold lines among them. Context efficiency is the gold lines covered
// per line shown at the middle budget (100), in percent: a tool that
// shows whole files pays for every line. The BM25 baseline shows its top
// files whole, from their first line, in rank order.

// LineBudgets are the line budgets line recall is reported at; the
// middle one is where context efficiency is measured.
var LineBudgets = []int{50, 100, 200}

// GoldLines returns, for each of files, the gold lines of the fix diffs
// (see DESIGN), sorted; files without any are left out.
func GoldLines(diffs []udiff.FileDiff, files []string) map[string][]int {
	out := map[string][]int{}
	for _, d := range diffs {
		if d.OldPath == "" || !slices.Contains(files, d.OldPath) {
			continue
		}
		var ls []int
		for _, h := range d.Hunks {
			ls = append(ls, h.Deleted...)
			for _, at := range h.Inserted {
				ls = append(ls, max(1, at-1))
			}
		}
		slices.Sort(ls)
		if ls = slices.Compact(ls); len(ls) > 0 {
			out[d.OldPath] = ls
		}
	}
	return out
}

// scoreLines fills r's line figures from the prediction's spans.
func scoreLines(r *InstanceResult, gold map[string][]int, spans []retrieve.Span) {
	total := 0
	for _, ls := range gold {
		total += len(ls)
	}
	if total == 0 {
		return
	}
	r.HasLines = true
	r.LineRecall = map[int]float64{}
	for _, b := range LineBudgets {
		hit, shown := linesCovered(gold, spans, b)
		r.LineRecall[b] = float64(hit) / float64(total)
		if b == LineBudgets[len(LineBudgets)/2] && shown > 0 {
			r.LineEff = float64(hit) / float64(shown)
		}
	}
}

// linesCovered counts the gold lines among the first budget lines of
// spans, and the lines shown.
func linesCovered(gold map[string][]int, spans []retrieve.Span, budget int) (hit, shown int) {
	seen := map[string]map[int]bool{}
	for _, sp := range spans {
		for l := sp.Start; l <= sp.End && shown < budget; l++ {
			if seen[sp.Path] == nil {
				seen[sp.Path] = map[int]bool{}
			}
			if seen[sp.Path][l] {
				continue
			}
			seen[sp.Path][l] = true
			shown++
			if _, ok := slices.BinarySearch(gold[sp.Path], l); ok {
				hit++
			}
		}
	}
	return hit, shown
}

// wholeFiles returns the baseline's spans: each file of files whole, in
// order, until budget lines.
func wholeFiles(root string, files []string, budget int) []retrieve.Span {
	var out []retrieve.Span
	total := 0
	for _, f := range files {
		if total >= budget {
			break
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		n := strings.Count(string(data), "\n")
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		if n == 0 {
			continue
		}
		n = min(n, budget-total)
		out = append(out, retrieve.Span{Path: f, Start: 1, End: n})
		total += n
	}
	return out
}
