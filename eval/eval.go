package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
)

// Instance is one localization task: a problem statement and where the fix
// went. Gold functions are location names ("path/file.go:Func",
// "path/file.go:Recv.Method").
type Instance struct {
	ID            string   `json:"instance_id"`
	Problem       string   `json:"problem_statement"`
	GoldFiles     []string `json:"gold_files"`
	GoldFunctions []string `json:"gold_functions"`
	// GoldLines optionally gives, per gold file, the lines a reader must
	// see to make the fix (GoldLines derives them from the fix's diff);
	// line figures are scored when present.
	GoldLines map[string][]int `json:"gold_lines,omitempty"`
	// Repo optionally names a Go module version ("github.com/spf13/pflag@v1.0.9")
	// or an npm package version ("npm:qs@6.12.1") whose source is the
	// checkout; MaterializeCheckouts uses it.
	Repo string `json:"repo,omitempty"`
}

// LoadInstances reads JSON lines of Instance (blank lines skipped, lines
// of any length); errors name the line and what it lacks.
func LoadInstances(r io.Reader) ([]Instance, error) {
	return loadJSONL(r, `{"instance_id", "problem_statement", "gold_files", "gold_functions"}`,
		func(in *Instance) string { return in.ID },
		func(in *Instance) error {
			switch {
			case strings.TrimSpace(in.Problem) == "":
				return errors.New("problem_statement is empty (give the issue's text)")
			case len(in.GoldFiles) == 0:
				return errors.New("gold_files is empty (list the files the fix changes)")
			}
			if err := checkGoldPaths("gold_files", in.GoldFiles, false); err != nil {
				return err
			}
			return checkGoldPaths("gold_functions", in.GoldFunctions, true)
		})
}

// Prediction is a ranked localization: files and functions, best first.
type Prediction struct {
	Files     []string `json:"files"`
	Functions []string `json:"functions"`
	// Spans are line spans in reading order (line figures).
	Spans []retrieve.Span `json:"spans,omitempty"`
}

// InstanceResult scores one instance.
type InstanceResult struct {
	ID      string     `json:"instance_id"`
	Method  string     `json:"method"`
	Pred    Prediction `json:"prediction"`
	Seconds float64    `json:"seconds"` // retrieval time (indexing excluded)
	Index   float64    `json:"index_seconds,omitempty"`
	Error   string     `json:"error,omitempty"`
	// FileAll[k] / FileAny[k]: all / any gold file within the top k.
	FileAll map[int]bool `json:"file_all"`
	FileAny map[int]bool `json:"file_any"`
	FuncAll map[int]bool `json:"func_all"`
	FuncAny map[int]bool `json:"func_any"`
	FileRR  float64      `json:"file_rr"` // 1/rank of the first gold file, 0 if absent
	FuncRR  float64      `json:"func_rr"`
	HasFunc bool         `json:"has_functions"` // the instance has gold functions
	// LineRecall[b]: the share of gold lines among the first b lines of
	// the spans (LineBudgets); LineEff: gold lines per line shown at the
	// middle budget. Scored when HasLines (the instance has gold lines).
	LineRecall map[int]float64 `json:"line_recall,omitempty"`
	LineEff    float64         `json:"line_efficiency,omitempty"`
	HasLines   bool            `json:"has_lines,omitempty"`
	Tokens     int64           `json:"tokens,omitempty"` // model tokens used (agent)
}

// Cut-offs reported.
var (
	FileKs = []int{1, 5, 10}
	FuncKs = []int{5, 10}
)

// Score compares a prediction with the instance's gold answer.
func Score(in Instance, p Prediction) InstanceResult {
	r := InstanceResult{ID: in.ID, Pred: p, FileAll: map[int]bool{}, FileAny: map[int]bool{}, FuncAll: map[int]bool{}, FuncAny: map[int]bool{}, HasFunc: len(in.GoldFunctions) > 0}
	for _, k := range FileKs {
		r.FileAll[k], r.FileAny[k] = hitsAt(in.GoldFiles, p.Files, k)
	}
	r.FileRR = reciprocalRank(in.GoldFiles, p.Files)
	if r.HasFunc {
		for _, k := range FuncKs {
			r.FuncAll[k], r.FuncAny[k] = hitsAt(in.GoldFunctions, p.Functions, k)
		}
		r.FuncRR = reciprocalRank(in.GoldFunctions, p.Functions)
	}
	scoreLines(&r, in.GoldLines, p.Spans)
	return r
}

func hitsAt(gold, pred []string, k int) (all, any bool) {
	top := pred[:min(k, len(pred))]
	all = true
	for _, g := range gold {
		if slices.Contains(top, g) {
			any = true
		} else {
			all = false
		}
	}
	return all && len(gold) > 0, any
}

func reciprocalRank(gold, pred []string) float64 {
	for i, p := range pred {
		if slices.Contains(gold, p) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Summary aggregates results of one method, in percent (MRR in 0–1).
type Summary struct {
	Method      string          `json:"method"`
	Group       string          `json:"group,omitempty"` // the instances' subset (a repository), "" for all
	Instances   int             `json:"instances"`
	Errors      int             `json:"errors"`
	FileAll     map[int]float64 `json:"file_all_at"`
	FileAny     map[int]float64 `json:"file_any_at"`
	FuncAll     map[int]float64 `json:"func_all_at"`
	FuncAny     map[int]float64 `json:"func_any_at"`
	FileMRR     float64         `json:"file_mrr"`
	FuncMRR     float64         `json:"func_mrr"`
	FuncScored  int             `json:"func_instances"` // instances with gold functions
	LineRecall  map[int]float64 `json:"line_recall_at,omitempty"`
	LineEff     float64         `json:"line_efficiency,omitempty"` // gold lines per 100 lines shown at the middle budget
	LineScored  int             `json:"line_instances,omitempty"`  // instances with gold lines
	MeanSeconds float64         `json:"mean_seconds"`
	MeanTokens  float64         `json:"mean_tokens,omitempty"` // model tokens per instance (agent)
}

// Summarize averages results (errors count as misses).
func Summarize(method string, rs []InstanceResult) Summary {
	s := Summary{Method: method, Instances: len(rs), FileAll: map[int]float64{}, FileAny: map[int]float64{}, FuncAll: map[int]float64{}, FuncAny: map[int]float64{}}
	if len(rs) == 0 {
		return s
	}
	for _, r := range rs {
		if r.Error != "" {
			s.Errors++
		}
		for _, k := range FileKs {
			s.FileAll[k] += b2f(r.FileAll[k])
			s.FileAny[k] += b2f(r.FileAny[k])
		}
		s.FileMRR += r.FileRR
		s.MeanSeconds += r.Seconds
		s.MeanTokens += float64(r.Tokens)
		if r.HasFunc {
			s.FuncScored++
			for _, k := range FuncKs {
				s.FuncAll[k] += b2f(r.FuncAll[k])
				s.FuncAny[k] += b2f(r.FuncAny[k])
			}
			s.FuncMRR += r.FuncRR
		}
		if r.HasLines {
			s.LineScored++
			if s.LineRecall == nil {
				s.LineRecall = map[int]float64{}
			}
			for _, b := range LineBudgets {
				s.LineRecall[b] += r.LineRecall[b]
			}
			s.LineEff += r.LineEff
		}
	}
	n := float64(len(rs))
	for _, k := range FileKs {
		s.FileAll[k] = pct(s.FileAll[k], n)
		s.FileAny[k] = pct(s.FileAny[k], n)
	}
	s.FileMRR = round3(s.FileMRR / n)
	s.MeanSeconds = round3(s.MeanSeconds / n)
	s.MeanTokens = math.Round(s.MeanTokens / n)
	if f := float64(s.FuncScored); f > 0 {
		for _, k := range FuncKs {
			s.FuncAll[k] = pct(s.FuncAll[k], f)
			s.FuncAny[k] = pct(s.FuncAny[k], f)
		}
		s.FuncMRR = round3(s.FuncMRR / f)
	}
	if l := float64(s.LineScored); l > 0 {
		for _, b := range LineBudgets {
			s.LineRecall[b] = pct(s.LineRecall[b], l)
		}
		s.LineEff = pct(s.LineEff, l)
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func pct(x, n float64) float64 { return math.Round(1000*x/n) / 10 }

func round3(x float64) float64 { return math.Round(1000*x) / 1000 }

// Eval methods.
const (
	MethodRelay     = "relay"      // the offline retrieval pipeline (Search + RankFiles)
	MethodBM25Files = "bm25-files" // baseline: plain BM25 over whole files, no graph
)

// Predict localizes a problem statement with the relay pipeline
// (retrieve's Localize): o tunes the search (ablations).
func Predict(ctx context.Context, s *retrieve.Searcher, problem string, o retrieve.SearchOptions) (Prediction, error) {
	l, err := s.LocalizeSpans(ctx, problem, o, slices.Max(LineBudgets))
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Files: l.Files, Functions: l.Functions, Spans: l.Spans}, nil
}

// Options configure Run.
type Options struct {
	// Checkouts is the directory holding one checkout per instance id.
	Checkouts string
	// Prepare indexes a checkout (graph + retrieval index) and returns a
	// reader of its graph and a function releasing it.
	Prepare func(ctx context.Context, root string) (graphdb.Reader, func() error, error)
	// Baseline also runs the BM25-over-files baseline.
	Baseline bool
	// Search tunes the relay pipeline (ablations: NoGraph, weights).
	Search retrieve.SearchOptions
	// Agent, when set, also localizes with a model (method MethodAgent).
	Agent AgentLocalizer
	// Progress, when set, is called after each instance.
	Progress func(done, total int, r InstanceResult)
}

// Report holds per-instance results and summaries per method.
type Report struct {
	Results   []InstanceResult `json:"results"`
	Summaries []Summary        `json:"summaries"`
}

// Run localizes every instance with the relay pipeline (and the
// baseline when asked) and scores the predictions. A failing instance is
// recorded with its error and scored as a miss; the run goes on.
func Run(ctx context.Context, insts []Instance, opts Options) (Report, error) {
	if opts.Prepare == nil {
		return Report{}, errors.New("eval needs a Prepare function to index checkouts")
	}
	byMethod := map[string][]InstanceResult{}
	var rep Report
	for i, in := range insts {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		root := filepath.Join(opts.Checkouts, in.ID)
		rs := evalOne(ctx, in, root, opts)
		for _, r := range rs {
			byMethod[r.Method] = append(byMethod[r.Method], r)
			rep.Results = append(rep.Results, r)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(insts), rs[0])
		}
	}
	methods := make([]string, 0, len(byMethod))
	for m := range byMethod {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		rep.Summaries = append(rep.Summaries, Summarize(m, byMethod[m]))
	}
	return rep, nil
}

func evalOne(ctx context.Context, in Instance, root string, opts Options) []InstanceResult {
	fail := func(method string, err error) InstanceResult {
		r := Score(in, Prediction{})
		r.Method, r.Error = method, err.Error()
		return r
	}
	methods := []string{MethodRelay}
	if opts.Agent != nil {
		methods = append(methods, MethodAgent)
	}
	if opts.Baseline {
		methods = append(methods, MethodBM25Files)
	}
	failAll := func(err error) []InstanceResult {
		var out []InstanceResult
		for _, m := range methods {
			out = append(out, fail(m, err))
		}
		return out
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return failAll(fmt.Errorf("checkout %s is missing", root))
	}
	t0 := time.Now()
	g, release, err := opts.Prepare(ctx, root)
	if err != nil {
		return failAll(fmt.Errorf("index %s: %w", root, err))
	}
	defer release()
	indexSecs := time.Since(t0).Seconds()
	var out []InstanceResult
	s, err := retrieve.Open(root, g, retrieve.OpenOptions{})
	if err != nil {
		out = append(out, fail(MethodRelay, err))
	} else {
		t1 := time.Now()
		p, err := Predict(ctx, s, in.Problem, opts.Search)
		if err != nil {
			out = append(out, fail(MethodRelay, err))
		} else {
			r := Score(in, p)
			r.Method, r.Seconds, r.Index = MethodRelay, time.Since(t1).Seconds(), indexSecs
			out = append(out, r)
		}
	}
	if opts.Agent != nil {
		t3 := time.Now()
		p, tokens, err := opts.Agent(ctx, root, g, in.Problem)
		r := Score(in, p)
		r.Method, r.Seconds, r.Index, r.Tokens = MethodAgent, time.Since(t3).Seconds(), indexSecs, tokens
		if err != nil {
			r.Error = err.Error()
		}
		out = append(out, r)
	}
	if opts.Baseline {
		t2 := time.Now()
		fb, err := retrieve.NewFileBaseline(root)
		if err != nil {
			out = append(out, fail(MethodBM25Files, err))
		} else {
			files := fb.Rank(in.Problem)
			r := Score(in, Prediction{Files: files, Spans: wholeFiles(root, files, slices.Max(LineBudgets))})
			r.Method, r.Seconds = MethodBM25Files, time.Since(t2).Seconds()
			out = append(out, r)
		}
	}
	return out
}

// label names a summary's row: the method, after its group when it has one
// ("dayjs/relay").
func (s Summary) label() string {
	if s.Group != "" {
		return s.Group + "/" + s.Method
	}
	return s.Method
}

// Table renders the summaries as a text table, one row per method (and
// group).
func (r Report) Table() string {
	var b strings.Builder
	w := 14
	for _, s := range r.Summaries {
		w = max(w, len(s.label()))
	}
	lines := false
	for _, s := range r.Summaries {
		lines = lines || s.LineScored > 0
	}
	fmt.Fprintf(&b, "%-*s %5s %6s %6s %7s %6s %6s %7s %6s %6s %6s %6s %8s %8s %8s",
		w, "method", "n", "f.all1", "f.all5", "f.all10", "f.any1", "f.any5", "f.any10", "fn.a5", "fn.a10", "fn.y5", "fn.y10", "file.mrr", "fn.mrr", "s/inst")
	if lines {
		fmt.Fprintf(&b, " %6s %7s %7s %6s", "ln.r50", "ln.r100", "ln.r200", "ln.eff")
	}
	b.WriteString("\n")
	for _, s := range r.Summaries {
		fn := func(m map[int]float64, k int) string {
			if s.FuncScored == 0 || s.Method == MethodBM25Files {
				return "-"
			}
			return fmt.Sprintf("%.1f", m[k])
		}
		fnMRR := "-"
		if s.FuncScored > 0 && s.Method != MethodBM25Files {
			fnMRR = fmt.Sprintf("%.3f", s.FuncMRR)
		}
		fmt.Fprintf(&b, "%-*s %5d %6.1f %6.1f %7.1f %6.1f %6.1f %7.1f %6s %6s %6s %6s %8.3f %8s %8.3f",
			w, s.label(), s.Instances, s.FileAll[1], s.FileAll[5], s.FileAll[10], s.FileAny[1], s.FileAny[5], s.FileAny[10],
			fn(s.FuncAll, 5), fn(s.FuncAll, 10), fn(s.FuncAny, 5), fn(s.FuncAny, 10), s.FileMRR, fnMRR, s.MeanSeconds)
		if lines {
			b.WriteString(s.lineColumns())
		}
		b.WriteString("\n")
		if s.Errors > 0 {
			fmt.Fprintf(&b, "  (%d instance(s) failed and count as misses)\n", s.Errors)
		}
		if s.MeanTokens > 0 {
			fmt.Fprintf(&b, "  (%s: %.0f model tokens per instance)\n", s.Method, s.MeanTokens)
		}
	}
	b.WriteString("f.all/any k: all/any gold files in the top k (%); fn.a/fn.y k: all/any gold functions in the top k (%); MRR of the first gold item; s/inst: retrieval seconds per instance (indexing excluded).\n")
	if lines {
		b.WriteString("ln.r b: gold lines among the first b lines shown (%); ln.eff: gold lines per 100 lines shown at 100 (eval.GoldLines says which lines are gold).\n")
	}
	return b.String()
}

// TableRows is Table without its legend: the header and one line per
// row (and the notes under rows), as the golden stats files hold them.
func (r Report) TableRows() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.Table()), "\n") {
		if strings.HasPrefix(l, "f.all/any k:") || strings.HasPrefix(l, "ln.r b:") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// lineColumns renders the line figures of a table row ("-" when the
// summary has no instance with gold lines).
func (s Summary) lineColumns() string {
	if s.LineScored == 0 {
		return fmt.Sprintf(" %6s %7s %7s %6s", "-", "-", "-", "-")
	}
	return fmt.Sprintf(" %6.1f %7.1f %7.1f %6.1f", s.LineRecall[50], s.LineRecall[100], s.LineRecall[200], s.LineEff)
}
