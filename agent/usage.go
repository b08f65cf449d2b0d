package agent

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Stage names one part of a run; usage and transcripts are kept per stage.
type Stage string

// The stages of a run.
const (
	StagePlanner   Stage = "planner"
	StageRetriever Stage = "retriever"
	StageGap       Stage = "gap"    // the gap detector (relay scope, batch)
	StageAnswer    Stage = "answer" // the answer writer (relay ask)
)

// ErrBudget is returned (wrapped) by a model call refused because the run's
// token or cost budget is spent.
var ErrBudget = errors.New("run budget exhausted")

// Price is what a model costs in currency units (e.g. USD) per million tokens.
type Price struct {
	In  float64 `json:"in"`
	Out float64 `json:"out"`
}

// Budget bounds one run. Zero fields mean no limit here; [Options] gives
// MaxTokens a default (DefaultMaxTokens).
type Budget struct {
	MaxTokens int64   // prompt + completion tokens over all stages
	MaxCost   float64 // in the currency of the prices
}

// StageUsage is what one stage consumed.
type StageUsage struct {
	Stage            Stage         `json:"stage"`
	Calls            int           `json:"calls"`
	PromptTokens     int64         `json:"prompt_tokens"`
	CompletionTokens int64         `json:"completion_tokens"`
	Cost             float64       `json:"cost"`
	Time             time.Duration `json:"time_ns"` // model latency summed over calls
}

// Usage is what a whole run consumed.
type Usage struct {
	Stages           []StageUsage `json:"stages"` // in stage order, only stages that ran
	PromptTokens     int64        `json:"prompt_tokens"`
	CompletionTokens int64        `json:"completion_tokens"`
	Cost             float64      `json:"cost"`
	Priced           bool         `json:"priced"` // false when some model had no price
}

// Tokens returns prompt + completion tokens.
func (u Usage) Tokens() int64 { return u.PromptTokens + u.CompletionTokens }

// WriteSummary prints a small usage table: tokens and cost per stage.
func (u Usage) WriteSummary(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tcalls\tprompt\tcompletion\tcost\tmodel time\t")
	cost := func(c float64) string {
		if !u.Priced {
			return "-"
		}
		return fmt.Sprintf("%.4f", c)
	}
	for _, s := range u.Stages {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t\n", s.Stage, s.Calls, s.PromptTokens, s.CompletionTokens, cost(s.Cost), s.Time.Round(time.Millisecond))
	}
	fmt.Fprintf(tw, "total\t\t%d\t%d\t%s\t\t\n", u.PromptTokens, u.CompletionTokens, cost(u.Cost))
	return tw.Flush()
}

// meter accounts tokens and cost and enforces the budget. It is shared by
// the concurrent agents of one run.
type meter struct {
	mu       sync.Mutex
	budget   Budget
	prices   map[string]Price
	stages   map[Stage]*StageUsage
	tokens   int64
	cost     float64
	unpriced bool
	stopped  string // why the budget stopped the run, "" while it has not
}

func newMeter(b Budget, prices map[string]Price) *meter {
	return &meter{budget: b, prices: prices, stages: map[Stage]*StageUsage{}}
}

// admit reports an error wrapping ErrBudget when no further model call may
// start. Calls already in flight finish, so a run can overshoot its budget by
// at most what those calls consume.
func (m *meter) admit() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped != "" {
		return fmt.Errorf("%w: %s", ErrBudget, m.stopped)
	}
	return nil
}

// add records one call's usage and closes the budget once it is spent.
func (m *meter) add(stage Stage, model string, prompt, completion int64, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stages[stage]
	if s == nil {
		s = &StageUsage{Stage: stage}
		m.stages[stage] = s
	}
	s.Calls++
	s.PromptTokens += prompt
	s.CompletionTokens += completion
	s.Time += d
	m.tokens += prompt + completion
	if p, ok := m.prices[model]; ok {
		c := (float64(prompt)*p.In + float64(completion)*p.Out) / 1e6
		s.Cost += c
		m.cost += c
	} else {
		m.unpriced = true
	}
	switch {
	case m.stopped != "":
	case m.budget.MaxTokens > 0 && m.tokens >= m.budget.MaxTokens:
		m.stopped = fmt.Sprintf("token budget %d reached (%d tokens used)", m.budget.MaxTokens, m.tokens)
	case m.budget.MaxCost > 0 && m.cost >= m.budget.MaxCost:
		m.stopped = fmt.Sprintf("cost budget %.4f reached (cost %.4f)", m.budget.MaxCost, m.cost)
	}
}

func (m *meter) stopReason() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopped
}

var stageOrder = map[Stage]int{StagePlanner: 0, StageRetriever: 1, StageGap: 2, StageAnswer: 3}

func (m *meter) usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := Usage{Priced: !m.unpriced}
	for _, s := range m.stages {
		u.Stages = append(u.Stages, *s)
		u.PromptTokens += s.PromptTokens
		u.CompletionTokens += s.CompletionTokens
		u.Cost += s.Cost
	}
	sort.Slice(u.Stages, func(i, j int) bool { return stageOrder[u.Stages[i].Stage] < stageOrder[u.Stages[j].Stage] })
	if len(u.Stages) == 0 {
		u.Priced = len(m.prices) > 0
	}
	return u
}

// ParsePrice parses "model=in/out" (currency per million prompt/completion
// tokens), the form in which relay's CLI takes a price.
func ParsePrice(s string) (model string, p Price, err error) {
	model, rates, ok := strings.Cut(s, "=")
	in, out, ok2 := strings.Cut(rates, "/")
	if !ok || !ok2 || strings.TrimSpace(model) == "" {
		return "", Price{}, fmt.Errorf("price %q: want model=in/out, prices per million tokens, e.g. gpt-4o-mini=0.15/0.60", s)
	}
	if p.In, err = strconv.ParseFloat(strings.TrimSpace(in), 64); err != nil || p.In < 0 {
		return "", Price{}, fmt.Errorf("price %q: input price %q is not a non-negative number", s, in)
	}
	if p.Out, err = strconv.ParseFloat(strings.TrimSpace(out), 64); err != nil || p.Out < 0 {
		return "", Price{}, fmt.Errorf("price %q: output price %q is not a non-negative number", s, out)
	}
	return strings.TrimSpace(model), p, nil
}
