package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/retrieve/internal/bm25"
)

// OfflineNotice is printed at the top of every offline report.
const OfflineNotice = "No language model was used: this context was selected by lexical search" +
	" (BM25 over code-aware tokens), symbol lookup and code-graph relations."

// ReportOptions configure ContextReport.
type ReportOptions struct {
	Filter
	Files   int // ranked files to list; default 10
	Symbols int // ranked symbols to list; default 15
	// Lines is the budget of the line spans to read first; default 100,
	// negative for none.
	Lines int
	// Embedder, when set and the index has vectors for its model, adds
	// dense retrieval; the notice then says embeddings were used.
	Embedder Embedder
	// Dir is the index directory (relay's state directory); default <root>/.relay.
	Dir string
}

// Report is an offline context report: what the repository contains that is
// relevant to a question, and why each item was chosen.
type Report struct {
	Question string         `json:"question"`
	Offline  string         `json:"offline"` // OfflineNotice (plus embeddings, when used)
	Mode     string         `json:"mode"`
	Terms    []string       `json:"terms"`              // query terms after tokenization
	Mentions []string       `json:"mentions,omitempty"` // code-like words looked up in the graph
	Files    []ReportFile   `json:"files"`
	Symbols  []ReportSymbol `json:"symbols"`
	// Spans are the lines to read first, in reading order, within the
	// line budget (see LocalizeSpans).
	Spans  []Span   `json:"spans,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	TookMS float64  `json:"took_ms"`
}

// ReportFile is one ranked file.
type ReportFile struct {
	Rank    int      `json:"rank"`
	Path    string   `json:"path"`
	Score   float64  `json:"score"`
	Symbols []string `json:"symbols,omitempty"` // matched symbols in the file, best first
	Why     []string `json:"why"`
}

// ReportSymbol is one ranked symbol or text chunk.
type ReportSymbol struct {
	Rank      int      `json:"rank"`
	Name      string   `json:"name"`
	Loc       string   `json:"loc,omitempty"`
	Kind      string   `json:"kind"`
	Location  string   `json:"location"` // path:line
	Signature string   `json:"signature,omitempty"`
	Why       []string `json:"why"`
	Snippet   string   `json:"snippet,omitempty"`
	Callers   []string `json:"callers,omitempty"`
	Callees   []string `json:"callees,omitempty"`
	Parent    string   `json:"parent,omitempty"`
}

// reportDepth is how many search hits a report aggregates.
const reportDepth = 60

// ContextReport answers a question without a model: it opens the retrieval
// index of root, searches it, and ranks files and symbols with snippets and
// reasons. r may be nil (no graph relations then).
func ContextReport(ctx context.Context, root string, r graphdb.Reader, question string, opts ReportOptions) (Report, error) {
	s, err := Open(root, r, OpenOptions{Dir: opts.Dir, Embedder: opts.Embedder})
	if err != nil {
		return Report{}, err
	}
	return s.Report(ctx, question, opts)
}

// Report builds a context report for question; see ContextReport.
func (s *Searcher) Report(ctx context.Context, question string, opts ReportOptions) (Report, error) {
	start := time.Now()
	if opts.Files <= 0 {
		opts.Files = 10
	}
	if opts.Symbols <= 0 {
		opts.Symbols = 15
	}
	res, err := s.Search(ctx, question, SearchOptions{Filter: opts.Filter, Limit: reportDepth, NoFastPath: len(strings.Fields(question)) > 1})
	if err != nil {
		return Report{}, err
	}
	rep := Report{Question: question, Offline: OfflineNotice, Mode: res.Mode, Notes: res.Notes, Mentions: mentions(question)}
	if res.Mode == "hybrid" {
		rep.Offline = "No language model was used for reasoning: this context was selected by lexical search, embeddings similarity, symbol lookup and code-graph relations."
	}
	seenTerm := map[string]bool{}
	for _, t := range Tokenize(question) {
		if !seenTerm[t] {
			seenTerm[t] = true
			rep.Terms = append(rep.Terms, t)
		}
	}
	ranked := s.RankFilesFused(question, question, res.Hits, opts.Languages)
	for i, f := range ranked {
		if i >= opts.Files {
			break
		}
		rep.Files = append(rep.Files, f)
	}
	if opts.Lines >= 0 {
		// Source files only, as Localize ranks them: a fix is made in code.
		lang := map[string]string{}
		for _, h := range res.Hits {
			lang[h.Path] = h.Language
		}
		var paths []string
		for _, f := range ranked {
			if slices.Contains(SourceLanguages, lang[f.Path]) {
				paths = append(paths, f.Path)
			}
		}
		rep.Spans = s.spans(res.Hits, paths, rankFunctions(res.Hits, paths, 0, s.commonNames(), s.fileClass), cmp.Or(opts.Lines, 100))
	}
	for _, h := range res.Hits {
		if len(rep.Symbols) >= opts.Symbols {
			break
		}
		sym := ReportSymbol{Rank: len(rep.Symbols) + 1, Name: h.Name, Loc: h.Loc, Kind: h.Kind, Location: h.Location(),
			Signature: h.Signature, Why: h.Why, Snippet: h.Snippet}
		if h.NodeID != "" && s.graph != nil && sym.Rank <= 8 {
			c, err := s.expand(ctx, h.NodeID)
			if err != nil {
				return Report{}, err
			}
			for _, r := range c.Callers {
				sym.Callers = append(sym.Callers, refLabel(r))
			}
			for _, r := range c.Callees {
				sym.Callees = append(sym.Callees, refLabel(r))
			}
			if c.Parent != nil {
				sym.Parent = refLabel(*c.Parent)
			}
		}
		rep.Symbols = append(rep.Symbols, sym)
	}
	rep.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return rep, nil
}

func refLabel(r Ref) string {
	name := r.QName
	if name == "" {
		name = r.Name
	}
	if r.Location != "" {
		return name + " (" + r.Location + ")"
	}
	return name
}

// FileRankWeight weighs the file-level BM25 ranking against the ranking
// aggregated from chunk hits when RankFilesFused combines them.
const FileRankWeight = 1.0

// TitleWeight multiplies the weight of the query terms that occur in the
// first line of a text that has more (an issue's title) in the whole-file
// BM25 of RankFilesFused: a long, noisy body must not drown what the title
// says. A one-line text has all its terms in the title, so its ranking does
// not change.
const TitleWeight = 2.0

// TitleRankWeight weighs BM25 over whole files for the title alone in
// RankFilesFused, when the body is noisy (noisyTitle).
const TitleRankWeight = 0.5

// NamedFileWeight weighs the files the text names outright (fileMentions)
// in RankFilesFused.
const NamedFileWeight = 1.0

// RankFilesFused ranks files by fusing (RRF) the chunk hits aggregated per
// file (RankFiles), BM25 over whole files for query (its title's terms
// weighted up, titleWeighted), BM25 over whole files for the title alone
// when the rest of text is noisy (noisyTitle) and the files text
// names outright (fileMentions; text is the full statement, query what the
// lexical rankers saw of it), restricted to files whose language passes
// langs (nil: all). Whole-file BM25 sees a file's
// vocabulary at once; chunk hits see precise symbols. Together they beat
// either alone on the dev set (see eval/testdata/eval_stats.txt).
func (s *Searcher) RankFilesFused(text, query string, hits []Hit, langs []string) []ReportFile {
	agg := RankFiles(hits)
	var keep func(int32) bool
	if len(langs) > 0 {
		keep = func(d int32) bool {
			l, _ := LanguageOf(s.ix.Files[d].Path)
			return slices.Contains(langs, l)
		}
	}
	fl := s.ix.FileLex.Search(titleWeighted(s.ix.FileLex.Expand(Tokenize(query)), text), keep, candidates)
	aggRank := Ranking{Name: "chunks", Weight: 1}
	info := map[int32]ReportFile{}
	for _, f := range agg {
		d, ok := s.fileOf(f.Path)
		if !ok {
			continue
		}
		aggRank.Docs = append(aggRank.Docs, d)
		info[d] = f
	}
	fileRank := Ranking{Name: "file-bm25", Weight: FileRankWeight}
	for _, h := range fl {
		fileRank.Docs = append(fileRank.Docs, h.Doc)
		if _, ok := info[h.Doc]; !ok {
			info[h.Doc] = ReportFile{Path: s.ix.Files[h.Doc].Path}
		}
		f := info[h.Doc]
		f.Why = append(f.Why, fmt.Sprintf("whole-file BM25 (terms: %s)", strings.Join(h.Matched, ", ")))
		info[h.Doc] = f
	}
	titleRank := Ranking{Name: "title-bm25", Weight: TitleRankWeight}
	if title, ok := noisyTitle(text); ok {
		for _, h := range s.ix.FileLex.Search(s.ix.FileLex.Expand(Tokenize(cleanIssueText(title))), keep, candidates) {
			titleRank.Docs = append(titleRank.Docs, h.Doc)
			if _, ok := info[h.Doc]; !ok {
				info[h.Doc] = ReportFile{Path: s.ix.Files[h.Doc].Path}
			}
		}
	}
	named := Ranking{Name: "named", Weight: NamedFileWeight}
	for _, d := range s.fileMentions(text, keep) {
		named.Docs = append(named.Docs, d)
		if _, ok := info[d]; !ok {
			info[d] = ReportFile{Path: s.ix.Files[d].Path}
		}
		f := info[d]
		f.Why = append(f.Why, "named in the text (path, file name, qualified name or stack frame)")
		info[d] = f
	}
	var out []ReportFile
	penalize := !mentionsTests(query)
	for _, fu := range FuseRRF(RRFK, aggRank, fileRank, titleRank, named) {
		f := info[fu.Doc]
		f.Score = fu.Score
		switch c := s.fileClass(f.Path); {
		case c == ClassTest && penalize:
			f.Score *= TestPenalty
		case c.Demoted():
			f.Score *= DemotedPenalty
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// RankFiles aggregates hits into files: a file scores the sum of its hits'
// scores with geometric decay (1, ½, ¼, …) so one strong hit beats many weak
// ones but several good hits add up. Files come out best first.
func RankFiles(hits []Hit) []ReportFile {
	type agg struct {
		f     ReportFile
		n     int
		first int
	}
	by := map[string]*agg{}
	for i, h := range hits {
		a := by[h.Path]
		if a == nil {
			a = &agg{f: ReportFile{Path: h.Path}, first: i}
			by[h.Path] = a
		}
		a.f.Score += h.Score / float64(int(1)<<min(a.n, 20))
		a.n++
		if h.Kind != ChunkText && len(a.f.Symbols) < 5 {
			a.f.Symbols = append(a.f.Symbols, h.Name)
		}
		if len(a.f.Why) < 3 {
			a.f.Why = append(a.f.Why, fmt.Sprintf("%s %s: %s", h.Kind, h.Name, strings.Join(h.Why, "; ")))
		}
	}
	out := make([]ReportFile, 0, len(by))
	firsts := map[string]int{}
	for p, a := range by {
		out = append(out, a.f)
		firsts[p] = a.first
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return firsts[out[i].Path] < firsts[out[j].Path]
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// Markdown renders the report for people and prompts.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context report (offline)\n\n> %s\n\n", r.Offline)
	fmt.Fprintf(&b, "**Question:** %s\n\n", lines.One(r.Question, 400))
	fmt.Fprintf(&b, "Search terms: %s", strings.Join(r.Terms, ", "))
	if len(r.Mentions) > 0 {
		fmt.Fprintf(&b, " · code mentions looked up: %s", strings.Join(r.Mentions, ", "))
	}
	b.WriteString("\n\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s\n\n", n)
	}
	if len(r.Files) == 0 {
		b.WriteString("Nothing in the index matched the question. Try other words, or name a symbol or file; if the repository changed since it was indexed, the index may not match the files.\n")
		return b.String()
	}
	b.WriteString("## Files\n\n| # | file | score | matched symbols |\n|---|---|---|---|\n")
	for _, f := range r.Files {
		fmt.Fprintf(&b, "| %d | `%s` | %.4f | %s |\n", f.Rank, f.Path, f.Score, strings.Join(f.Symbols, ", "))
	}
	if len(r.Spans) > 0 {
		n := 0
		for _, sp := range r.Spans {
			n += sp.Lines()
		}
		fmt.Fprintf(&b, "\n## Lines to read first\n\n%d lines, in reading order: ", n)
		for i, sp := range r.Spans {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "`%s`", sp)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Symbols\n")
	for _, s := range r.Symbols {
		name := s.Name
		if s.Loc != "" {
			name = s.Loc
		}
		fmt.Fprintf(&b, "\n### %d. `%s` (%s) — %s\n\n", s.Rank, name, s.Kind, s.Location)
		if s.Signature != "" {
			fmt.Fprintf(&b, "`%s`\n\n", lines.One(s.Signature, 200))
		}
		fmt.Fprintf(&b, "Why: %s\n", strings.Join(s.Why, "; "))
		if s.Parent != "" {
			fmt.Fprintf(&b, "Member of: %s\n", s.Parent)
		}
		if len(s.Callers) > 0 {
			fmt.Fprintf(&b, "Called by: %s\n", strings.Join(s.Callers, ", "))
		}
		if len(s.Callees) > 0 {
			fmt.Fprintf(&b, "Calls: %s\n", strings.Join(s.Callees, ", "))
		}
		if s.Snippet != "" {
			fmt.Fprintf(&b, "\n```\n%s```\n", s.Snippet)
		}
	}
	return b.String()
}

// titleWeighted multiplies by TitleWeight the weight of the terms that come
// from a word of text's first line, when text has more than one line.
func titleWeighted(terms []bm25.QueryTerm, text string) []bm25.QueryTerm {
	title, body, ok := strings.Cut(strings.TrimSpace(text), "\n")
	if !ok || strings.TrimSpace(body) == "" {
		return terms
	}
	inTitle := map[string]bool{}
	for _, t := range Tokenize(cleanIssueText(title)) {
		inTitle[t] = true
	}
	for i := range terms {
		if inTitle[terms[i].Orig] {
			terms[i].Weight *= TitleWeight
		}
	}
	return terms
}

// noisyTitle returns the first line of text when the rest is noisy: it
// holds a fenced code block or a stack frame (a log, a trace, a program),
// so that the title is the one clean statement of the problem and gets a
// ranking of its own. A short explanation under a title (a changelog
// entry) is no noise: there the title's terms are only weighted up.
func noisyTitle(text string) (string, bool) {
	title, body, ok := strings.Cut(strings.TrimSpace(text), "\n")
	if !ok || strings.TrimSpace(title) == "" {
		return "", false
	}
	if strings.Contains(body, "```") || frameRe.MatchString(body) || jsFrameRe.MatchString(body) {
		return title, true
	}
	return "", false
}
