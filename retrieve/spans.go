package retrieve

import (
	"context"
	"fmt"
	"sort"

	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// Span is a range of lines of one file, 1-based and inclusive: a place a
// localization names, for a reader (or a model) to look at.
type Span struct {
	Path  string `json:"path"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Lines is the number of lines the span holds.
func (sp Span) Lines() int { return sp.End - sp.Start + 1 }

// String is "path:start-end".
func (sp Span) String() string { return fmt.Sprintf("%s:%d-%d", sp.Path, sp.Start, sp.End) }

// Localization is what LocalizeSpans names: files and functions ranked,
// and line spans in the order to read them.
type Localization struct {
	Files     []string
	Functions []string
	Spans     []Span
}

// Span sizes: a function longer than maxSpanLines is narrowed to the
// window of that many lines holding the most query terms; spanFiles is how
// many of the top files take part in each round.
const (
	maxSpanLines = 30
	spanFiles    = 5
)

// DESIGN: line spans. Localize ranks files (reliably: the top file is a
// gold file for most issues) and functions (less so). A reader with a
// budget of lines wants the best place in each of the top files before a
// second place in any, so spans are dealt in rounds over the top
// spanFiles files in their rank order: round r takes each file's r-th
// place. A file's places are its functions in the function ranking's
// order, then its other hits (text windows, fields, types) in search
// order, each as its chunk's lines; a place longer than maxSpanLines is
// narrowed to the window of maxSpanLines lines holding the most distinct
// query terms (the terms the hit matched), so a 300-line function shows
// the part the report is about. Overlapping places of a file are merged
// into the span already dealt. The list stops at budget lines (the last
// span cut to fit); budget <= 0 means 400 lines.

// LocalizeSpans is Localize with line spans under a budget of lines.
func (s *Searcher) LocalizeSpans(ctx context.Context, problem string, o SearchOptions, budget int) (Localization, error) {
	files, functions, hits, err := s.localize(ctx, problem, o)
	if err != nil {
		return Localization{}, err
	}
	return Localization{Files: files, Functions: functions, Spans: s.spans(hits, files, functions, budget)}, nil
}

// spans deals the places of the top files in rounds (see DESIGN).
func (s *Searcher) spans(hits []Hit, files, functions []string, budget int) []Span {
	if budget <= 0 {
		budget = 400
	}
	top := files[:min(spanFiles, len(files))]
	places := map[string][]Hit{}
	inTop := map[string]bool{}
	for _, f := range top {
		inTop[f] = true
	}
	byLoc := map[string]Hit{}
	for _, h := range hits {
		if h.Loc != "" {
			if _, ok := byLoc[h.Loc]; !ok {
				byLoc[h.Loc] = h
			}
		}
	}
	used := map[string]bool{}
	for _, fn := range functions {
		if h, ok := byLoc[fn]; ok && inTop[h.Path] && !used[fn] {
			used[fn] = true
			places[h.Path] = append(places[h.Path], h)
		}
	}
	for _, h := range hits {
		if inTop[h.Path] && (h.Loc == "" || !used[h.Loc]) && h.EndLine >= h.StartLine && h.StartLine > 0 {
			if h.Loc != "" {
				used[h.Loc] = true
			}
			places[h.Path] = append(places[h.Path], h)
		}
	}
	var out []Span
	total := 0
	for round := 0; total < budget; round++ {
		dealt := false
		for _, f := range top {
			if round >= len(places[f]) || total >= budget {
				continue
			}
			dealt = true
			sp := s.narrow(places[f][round])
			sp, n := addSpan(out, sp)
			if n == 0 {
				continue
			}
			if total+n > budget { // cut the last span to fit
				sp.End -= total + n - budget
				n = budget - total
			}
			out = append(out, sp)
			total += n
		}
		if !dealt {
			break
		}
	}
	return out
}

// addSpan returns the part of sp no span of out covers (the longest run
// of uncovered lines; sp itself when none overlaps) and its line count, 0
// when out covers all of it.
func addSpan(out []Span, sp Span) (Span, int) {
	covered := func(l int) bool {
		for _, o := range out {
			if o.Path == sp.Path && o.Start <= l && l <= o.End {
				return true
			}
		}
		return false
	}
	best, cur := Span{}, Span{}
	for l := sp.Start; l <= sp.End; l++ {
		if covered(l) {
			cur = Span{}
			continue
		}
		if cur.Path == "" {
			cur = Span{Path: sp.Path, Start: l}
		}
		cur.End = l
		if cur.Lines() > best.Lines() || best.Path == "" {
			best = cur
		}
	}
	if best.Path == "" {
		return Span{}, 0
	}
	return best, best.Lines()
}

// narrow returns h's lines, narrowed when longer than maxSpanLines to the
// window holding the most distinct matched terms (the earliest on ties).
func (s *Searcher) narrow(h Hit) Span {
	sp := Span{Path: h.Path, Start: h.StartLine, End: h.EndLine}
	if sp.Lines() <= maxSpanLines || len(h.Matched) == 0 {
		if sp.Lines() > maxSpanLines {
			sp.End = sp.Start + maxSpanLines - 1
		}
		return sp
	}
	lines := s.fileLines(h.Path)
	if len(lines) < sp.End {
		sp.End = max(sp.Start, len(lines))
		if sp.Lines() > maxSpanLines {
			sp.End = sp.Start + maxSpanLines - 1
		}
		return sp
	}
	want := map[string]bool{}
	for _, m := range h.Matched {
		want[m] = true
	}
	// terms[i]: the matched terms on line Start+i.
	terms := make([][]string, sp.Lines())
	for i := range terms {
		seen := map[string]bool{}
		for _, t := range tokenize.Text(lines[sp.Start-1+i]) {
			if want[t] && !seen[t] {
				seen[t] = true
				terms[i] = append(terms[i], t)
			}
		}
	}
	count := map[string]int{}
	distinct := 0
	add := func(i, d int) {
		for _, t := range terms[i] {
			if count[t] == 0 && d > 0 {
				distinct++
			}
			count[t] += d
			if count[t] == 0 && d < 0 {
				distinct--
			}
		}
	}
	bestAt, best := 0, -1
	for i := range terms {
		add(i, 1)
		if i >= maxSpanLines {
			add(i-maxSpanLines, -1)
		}
		if i >= maxSpanLines-1 && distinct > best {
			best, bestAt = distinct, i-maxSpanLines+1
		}
	}
	return Span{Path: h.Path, Start: sp.Start + bestAt, End: sp.Start + bestAt + maxSpanLines - 1}
}

// SortSpans orders spans by path and start line (for a listing; the
// order LocalizeSpans gives is the reading order).
func SortSpans(spans []Span) {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].Path != spans[j].Path {
			return spans[i].Path < spans[j].Path
		}
		return spans[i].Start < spans[j].Start
	})
}
