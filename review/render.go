package review

import (
	"fmt"
	"strings"

	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/retrieve"
)

// DefaultBudget is the token budget of Context.Markdown when the
// caller gives none.
const DefaultBudget = 1200

// MinBudget is the smallest budget at which Markdown always keeps the
// line saying what the budget left out: below it the title and the file
// list can fill the budget, and the context was cut without a word
// (relay review refuses a smaller --budget).
const MinBudget = 100

// EstimateTokens approximates the tokens of s for budgeting (4 bytes per
// token, the usual figure for English and code with BPE tokenizers).
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// budgetWriter appends lines while they fit a byte limit (4 bytes a token)
// minus a reserve kept for the lines that say what was left out, and counts
// what it had to leave out.
type budgetWriter struct {
	b               strings.Builder
	limit, reserve  int
	omitted         int
	skippedSections []string
}

func (w *budgetWriter) fits(s string) bool {
	return w.b.Len()+len(s) <= w.limit-w.reserve
}

// line writes s (plus a newline) if it fits; required lines are always
// written (Markdown clips the result if they overflow).
func (w *budgetWriter) line(s string, required bool) bool {
	s += "\n"
	if !required && !w.fits(s) {
		w.omitted++
		return false
	}
	w.b.WriteString(s)
	return true
}

// section writes a heading and items in order until the budget runs out,
// then one line saying how many were left out. A section whose first item
// does not fit is skipped whole and reported by skipped().
func (w *budgetWriter) section(title, label string, items []string) {
	if len(items) == 0 {
		return
	}
	if !w.fits("\n" + title + "\n" + items[0] + "\n") {
		w.skippedSections = append(w.skippedSections, fmt.Sprintf("%d %s", len(items), label))
		return
	}
	w.line("\n"+title, true)
	for i, it := range items {
		if !w.line(it, false) {
			w.line(fmt.Sprintf("- … %d more omitted for the token budget", len(items)-i), true)
			return
		}
	}
}

// skipped writes one line naming the sections left out entirely.
func (w *budgetWriter) skipped() {
	if len(w.skippedSections) > 0 {
		w.line("\nOmitted for the token budget: "+strings.Join(w.skippedSections, ", ")+".", true)
	}
}

// list writes "prefix a, b, c" with as many items as fit in at most max
// bytes (and the budget), then "… and N more <label>"; when not even one
// item fits, the line is left out and counted in skipped().
func (w *budgetWriter) list(prefix, label string, items []string, max int) {
	if len(items) == 0 {
		return
	}
	room := min(max, w.limit-w.reserve-w.b.Len())
	var b strings.Builder
	b.WriteString(prefix)
	n := 0
	for i, it := range items {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		more := ""
		if i < len(items)-1 {
			more = fmt.Sprintf(", … and %d more %s", len(items)-i-1, label)
		}
		if b.Len()+len(sep)+len(it)+len(more)+1 > room {
			break
		}
		b.WriteString(sep + it)
		n++
	}
	switch {
	case n == 0:
		w.skippedSections = append(w.skippedSections, fmt.Sprintf("%d %s", len(items), label))
		return
	case n < len(items):
		fmt.Fprintf(&b, ", … and %d more %s", len(items)-n, label)
	}
	w.line(b.String(), true)
}

// Markdown serializes the context for a prompt within budget tokens
// (DefaultBudget when ≤ 0; EstimateTokens of the result never exceeds
// it), in priority order: the files (a quarter of the budget at most),
// changed symbols with full signatures, the blast radius, direct callers
// with signatures, callees, then transitive callers and neighbours by name
// and location, then past feedback as "helpful" and "NOT helpful" examples.
// Items that do not fit are counted, never cut mid-line.
func (rc Context) Markdown(budget int) string {
	if budget <= 0 {
		budget = DefaultBudget
	}
	limit := budget * 4
	// Render with a growing reserve until the lines that say what was
	// left out fit too; the first pass reserves nothing, so a context that
	// fits is rendered as if there were no limit.
	out := ""
	for reserve := 0; reserve < limit; {
		out = rc.render(limit, reserve)
		if len(out) <= limit {
			return out
		}
		reserve += len(out) - limit + 16
	}
	return clipLines(out, limit)
}

// clipLines cuts s to its longest prefix of whole lines within limit
// bytes ("" when not even the title fits).
func clipLines(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return s[:strings.LastIndexByte(s[:limit], '\n')+1]
}

func (rc Context) render(limit, reserve int) string {
	w := &budgetWriter{limit: limit, reserve: reserve}
	w.line(fmt.Sprintf("## Review context (%s)", rc.Depth), true)
	var files []string
	for _, f := range rc.Files {
		s := fmt.Sprintf("`%s` (%s", f.Path, f.Status)
		if f.OldPath != "" {
			s += " from `" + f.OldPath + "`"
		}
		if f.Binary {
			s += ", binary"
		} else {
			s += fmt.Sprintf(", +%d −%d", f.Added, f.Deleted)
		}
		files = append(files, s+")")
	}
	w.list("Files: ", "file(s)", files, max(limit/4, 160))
	if b := rc.Blast; b != nil {
		tests := "no test reaches the changed code"
		if len(b.Tests) > 0 {
			tests = "tests reaching it: " + strings.Join(firstN(b.Tests, 5), ", ")
		}
		w.line(fmt.Sprintf("Blast radius: risk %d/100 — %d direct and %d transitive caller(s) (up to %d hops) in %d file(s); %s.",
			b.Risk, b.Direct, b.Transitive, b.MaxDepth, len(b.Files), tests), true)
	}
	rc.renderSymbols(w)
	var help, nohelp []string
	for _, f := range rc.Helpful {
		help = append(help, feedbackLine(f))
	}
	for _, f := range rc.NotHelpful {
		nohelp = append(nohelp, feedbackLine(f))
	}
	w.section("### Past review comments that were helpful", "helpful comment(s)", help)
	w.section("### Past review comments that were NOT helpful (avoid these)", "unhelpful comment(s)", nohelp)
	dropped := 0
	for _, n := range rc.Notes {
		if !w.line("\nNote: "+n, false) {
			dropped++
		}
	}
	if dropped > 0 {
		w.skippedSections = append(w.skippedSections, fmt.Sprintf("%d note(s)", dropped))
	}
	w.skipped()
	return w.b.String()
}

// renderSymbols writes the changed symbols, callers, callees and
// neighbours sections.
func (rc Context) renderSymbols(w *budgetWriter) {
	var changed []string
	for _, c := range rc.Changed {
		changed = append(changed, fmt.Sprintf("- %s `%s` — %s (%s)", c.Change, lines.One(retrieve.ShortSig(c.Ref), 300), c.Location, lineRanges(c.Lines)))
	}
	if len(changed) == 0 {
		w.line("\nNo indexed symbol is touched by the diff.", false)
	}
	w.section("### Changed symbols", "changed symbol(s)", changed)
	var direct, transitive []string
	for _, c := range rc.Callers {
		if c.Depth == 1 {
			direct = append(direct, fmt.Sprintf("- `%s` — %s (calls %s)", lines.One(retrieve.ShortSig(c.Ref), 200), c.Location, c.Of))
		} else {
			transitive = append(transitive, fmt.Sprintf("- %s — %s (%d hops from %s)", nameOf(c.Ref), c.Location, c.Depth, c.Of))
		}
	}
	w.section("### Direct callers", "direct caller(s)", direct)
	var callees []string
	for _, c := range rc.Callees {
		callees = append(callees, fmt.Sprintf("- %s — %s (called by %s)", nameOf(c.Ref), c.Location, c.Of))
	}
	w.section("### Callees", "callee(s)", callees)
	w.section("### Transitive callers", "transitive caller(s)", transitive)
	var ns []string
	for _, n := range rc.Neighbours {
		rel := "similar"
		if n.Of != "" && n.Depth < retrieve.MaxGraphDistance {
			rel = fmt.Sprintf("similar; %d hop(s) from %s", n.Depth, n.Of)
		}
		ns = append(ns, fmt.Sprintf("- %s — %s (%s)", nameOf(n.Ref), n.Location, rel))
	}
	w.section("### Semantic neighbours", "neighbour(s)", ns)
}

func feedbackLine(f ScoredFeedback) string {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("- %s: %q", loc, lines.One(f.Comment, 240))
}

func nameOf(r retrieve.Ref) string {
	if r.QName != "" {
		return r.QName
	}
	return r.Name
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return append(append([]string(nil), xs[:n]...), fmt.Sprintf("and %d more", len(xs)-n))
	}
	return xs
}

// lineRanges renders sorted line numbers as "lines 3-5, 9".
func lineRanges(ls []int) string {
	if len(ls) == 0 {
		return "no lines"
	}
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(ls[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ls[i], ls[j]))
		}
		i = j + 1
	}
	word := "lines "
	if len(ls) == 1 {
		word = "line "
	}
	return word + strings.Join(parts, ", ")
}
