package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/prompts"
)

// ScopeDoc is the structured scoping report the gap detector returns; its
// JSON form is the schema documented in the package comment.
type ScopeDoc struct {
	Summary            string      `json:"summary"`
	Established        []string    `json:"established"`
	Unknowns           []string    `json:"unknowns"`
	EdgeCases          []string    `json:"edge_cases"`
	Risks              []string    `json:"risks"`
	AffectedComponents []Component `json:"affected_components"`
	OpenQuestions      []string    `json:"open_questions"`
	Size               string      `json:"size"` // S, M, L or XL
	SizeRationale      string      `json:"size_rationale"`
}

// Component is one affected part of the code base.
type Component struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"` // path or path:line
	Reason string `json:"reason,omitempty"`
}

// Scoping is the result of [Runner.Scope].
type Scoping struct {
	RunID        string        `json:"run_id"`
	Issue        string        `json:"issue"`
	Structured   bool          `json:"structured"`       // false: markdown-only fallback, Report is nil
	Report       *ScopeDoc     `json:"report,omitempty"` // the gap detector's structured report
	Markdown     string        `json:"markdown"`         // the report for people
	Retrievals   []*Report     `json:"retrievals"`
	PlannerNotes string        `json:"planner_notes,omitempty"`
	Stopped      string        `json:"stopped,omitempty"` // why the run ended early ("budget: …", "timeout"), or ""
	BadCitations []Citation    `json:"bad_citations,omitempty"`
	Usage        Usage         `json:"usage"`
	Transcript   string        `json:"transcript,omitempty"`
	Duration     time.Duration `json:"duration_ns"`
}

// Answer is the result of [Runner.Ask].
type Answer struct {
	RunID        string        `json:"run_id"`
	Question     string        `json:"question"`
	Markdown     string        `json:"markdown"`
	Retrievals   []*Report     `json:"retrievals"`
	Stopped      string        `json:"stopped,omitempty"`
	BadCitations []Citation    `json:"bad_citations,omitempty"`
	Usage        Usage         `json:"usage"`
	Transcript   string        `json:"transcript,omitempty"`
	Duration     time.Duration `json:"duration_ns"`
}

// ErrEmptyIssue is returned by [Runner.Scope] for an issue with no text.
var ErrEmptyIssue = errors.New("the issue is empty")

// Scope runs planner → retrievers → gap detector for one issue. When the
// budget or a deadline stops the run it still returns a Scoping (with
// Stopped set) built from what it has; cancellation of ctx and
// infrastructure failures are errors, a *FailedRun saying what the run
// used before it failed.
func (r *Runner) Scope(ctx context.Context, issue string) (*Scoping, error) {
	issue = strings.TrimSpace(issue)
	if issue == "" {
		return nil, ErrEmptyIssue
	}
	rn, err := r.newRun("scope", issue)
	if err != nil {
		return nil, err
	}
	s, err := rn.scope(ctx, issue)
	stopped := ""
	if s != nil {
		stopped = s.Stopped
	}
	u, cerr := rn.finish(stopped, err)
	if err != nil {
		return nil, &FailedRun{Err: errors.Join(err, cerr), Usage: u}
	}
	s.Usage, s.Transcript, s.Duration = u, rn.tr.Path(), rn.elapsed()
	return s, cerr
}

func (rn *run) scope(ctx context.Context, issue string) (*Scoping, error) {
	p, err := rn.plan(ctx, issue, false)
	if err != nil {
		return nil, err
	}
	s := &Scoping{RunID: rn.id, Issue: issue, Retrievals: p.reports, PlannerNotes: p.notes, Stopped: p.stopped}
	if s.Stopped != "" {
		s.Markdown = fallbackMarkdown(issue, p.reports, "", "the run stopped early ("+s.Stopped+") before the gap detector ran")
		s.Markdown, s.BadCitations = checkCitations(rn.r.o.Root, s.Markdown)
		return s, nil
	}
	doc, raw, why, err := rn.gap(ctx, issue, p)
	if err != nil {
		if stop := rn.stopReason(ctx, err); stop != "" && stop != "cancelled" {
			s.Stopped = stop
			why = "the run stopped early (" + stop + ") during the gap detector"
		} else {
			return nil, err
		}
	}
	if doc != nil {
		s.Structured, s.Report = true, doc
		s.Markdown = doc.Markdown(issue, p.reports)
	} else {
		s.Markdown = fallbackMarkdown(issue, p.reports, raw, why)
	}
	s.Markdown, s.BadCitations = checkCitations(rn.r.o.Root, s.Markdown)
	return s, nil
}

// gap asks the gap detector for a ScopeDoc: JSON mode where the endpoint
// supports it, validated, with one retry on garbage. It returns the document,
// or nil with the model's last raw reply and why it was rejected.
func (rn *run) gap(ctx context.Context, issue string, p *planOutcome) (doc *ScopeDoc, raw, why string, err error) {
	o := rn.r.o
	rn.progress(Progress{Kind: "stage", Stage: StageGap})
	msgs := []openai.ChatCompletionMessage{
		systemMsg(prompts.MustRender(prompts.Gap, nil)),
		userMsg(evidence("Issue", issue, p)),
	}
	jsonMode := !o.NoJSONMode
	retried := false
	for step := 1; step <= 3; step++ {
		req := openai.ChatCompletionRequest{Model: o.Models.Gap, Messages: msgs}
		if jsonMode {
			req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		}
		resp, err := rn.chat(ctx, StageGap, "gap", step, req)
		if err != nil && jsonMode && StatusCode(err) == http.StatusBadRequest {
			rn.note(StageGap, "gap", "endpoint rejected response_format json_object; asking for JSON in the prompt only")
			jsonMode = false
			continue
		}
		if err != nil {
			return nil, raw, "", err
		}
		if len(resp.Choices) == 0 {
			raw, why = "", "the model returned no choices"
		} else {
			raw = resp.Choices[0].Message.Content
			doc, perr := ParseScopeDoc(raw)
			if perr == nil {
				return doc, raw, "", nil
			}
			why = perr.Error()
		}
		if retried {
			break
		}
		retried = true
		rn.note(StageGap, "gap", "invalid scoping JSON ("+why+"); asking once more")
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: raw},
			userMsg("That reply was not a valid scoping report ("+why+"). Reply with only the JSON object, with every field described in the instructions."))
	}
	rn.note(StageGap, "gap", "falling back to a markdown-only report: "+why)
	return nil, raw, "the model did not return a valid structured report (" + why + ")", nil
}

// ParseScopeDoc decodes and validates a gap detector reply: one JSON object
// (optionally in a ```json fence) with every field of ScopeDoc present and
// size one of S, M, L, XL.
func ParseScopeDoc(raw string) (*ScopeDoc, error) {
	s := strings.TrimSpace(raw)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	if s == "" {
		return nil, errors.New("empty reply")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &fields); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	var missing []string
	for _, f := range []string{"summary", "established", "unknowns", "edge_cases", "risks", "affected_components", "open_questions", "size", "size_rationale"} {
		if _, ok := fields[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing field(s) %s", strings.Join(missing, ", "))
	}
	var d ScopeDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return nil, fmt.Errorf("wrong field type: %v", err)
	}
	if strings.TrimSpace(d.Summary) == "" {
		return nil, errors.New("empty summary")
	}
	d.Size = strings.ToUpper(strings.TrimSpace(d.Size))
	switch d.Size {
	case "S", "M", "L", "XL":
	default:
		return nil, fmt.Errorf("size %q is not one of S, M, L, XL", d.Size)
	}
	for _, l := range []*[]string{&d.Established, &d.Unknowns, &d.EdgeCases, &d.Risks, &d.OpenQuestions} {
		if *l == nil {
			*l = []string{}
		}
	}
	if d.AffectedComponents == nil {
		d.AffectedComponents = []Component{}
	}
	return &d, nil
}

// untrusted delimits text that someone outside relay wrote (an issue, a
// question) or that quotes such text (a retriever's report), so the prompts
// can tell the model where data starts and ends. The code in the delimiter
// lines is derived from the text, so the text cannot close its own
// delimiter: it would have to contain its own hash.
func untrusted(kind, text string) string {
	sum := sha256.Sum256([]byte(text))
	code := hex.EncodeToString(sum[:6])
	return fmt.Sprintf("<<<BEGIN UNTRUSTED %s %s>>>\n%s\n<<<END UNTRUSTED %s %s>>>", kind, code, strings.TrimSpace(text), kind, code)
}

// evidence is the user message of the final stage: the issue or question,
// the planner's note and every retriever report.
func evidence(heading, text string, p *planOutcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n# Retriever reports\n", heading, untrusted(strings.ToUpper(heading), text))
	if len(p.reports) == 0 {
		b.WriteString("\n(no reports: the planner did not retrieve anything)\n")
	}
	for i, r := range p.reports {
		fmt.Fprintf(&b, "\n## Report %d: %s\n", i+1, r.Query)
		if r.Incomplete {
			fmt.Fprintf(&b, "(incomplete: %s)\n", r.Reason)
		}
		b.WriteString("\n" + untrusted("REPORT", r.Text) + "\n")
	}
	if p.notes != "" {
		fmt.Fprintf(&b, "\n# Planner's note\n\n%s\n", p.notes)
	}
	return b.String()
}

// FailedRun is the error of a run that failed after it may have used the
// model: Usage is what it used (a cost budget charges it).
type FailedRun struct {
	Err   error
	Usage Usage
}

func (e *FailedRun) Error() string { return e.Err.Error() }
func (e *FailedRun) Unwrap() error { return e.Err }
