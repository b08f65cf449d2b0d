package workspace

import (
	"log/slog"

	"github.com/relayhq/relay/agent"
)

// PublishScoping makes every text of a scoping report that a person or a
// script may read or post safe to publish, in place (package publish, with
// the secret-file values SecretValues read: quotes of secret-bearing files
// cut, their values and other secrets redacted, no raw HTML, images,
// unsafe links, live mentions or cross-references to other repositories
// than repo): the markdown report, the structured report's fields, the
// planner's notes, the retrievers' queries and reports, and the issue
// itself. What was cut and redacted is logged to log.
//
// The issue is published too (Publisher.Text: redacted and sanitised, no
// notes), although relay scope's caller holds it already: scripts post the
// JSON's fields (a summary, the issue quoted above it), and an issue is as
// untrusted as what the model wrote. The raw text stays where it came from
// (the tracker, the file, stdin).
func (w *Workspace) PublishScoping(log *slog.Logger, repo string, s *agent.Scoping) error {
	p, err := w.Publisher(repo)
	if err != nil {
		return err
	}
	var n int
	var cuts []string
	one := func(t *string) {
		if *t == "" {
			return
		}
		r := p.Report(*t)
		*t, n = r.Markdown, n+r.N()
		if r.CutAt != "" {
			cuts = append(cuts, r.CutAt)
		}
	}
	all := func(ts []string) {
		for i := range ts {
			one(&ts[i])
		}
	}
	one(&s.Markdown)
	s.Issue = p.Text(s.Issue)
	one(&s.PlannerNotes)
	if d := s.Report; d != nil {
		one(&d.Summary)
		one(&d.SizeRationale)
		for _, l := range [][]string{d.Established, d.Unknowns, d.EdgeCases, d.Risks, d.OpenQuestions} {
			all(l)
		}
		for i := range d.AffectedComponents {
			c := &d.AffectedComponents[i]
			one(&c.Name)
			one(&c.Path)
			one(&c.Reason)
		}
	}
	for _, r := range s.Retrievals {
		if r != nil {
			one(&r.Query)
			one(&r.Text)
		}
	}
	if n > 0 || len(cuts) > 0 {
		log.Warn("report filtered before publishing", "redacted", n, "cut_before", cuts)
	}
	return nil
}
