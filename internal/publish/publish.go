package publish

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/relayhq/relay/internal/egress"
)

// MaxBytes is the most of a report Report publishes: GitHub refuses a
// comment over 65,536 characters, and the footer and notes need room. It
// also bounds the markdown parses, whose cost grows faster than linearly
// on some inputs (long runs of emphasis delimiters).
const MaxBytes = 60 << 10

// Options say what Report checks a report against.
type Options struct {
	// Filter redacts secrets by their format and holds the secret-bearing
	// file policy; nil means egress.Default().
	Filter *egress.Filter
	// Files is the secret-bearing file policy when it differs from the
	// filter's (an operator's settings); nil means Filter.Files().
	Files *egress.FilePolicy
	// Root is the checkout the report was written from; the values of its
	// secret-bearing files are never published. "" skips that step.
	Root string
	// Values, when not nil, are the values of Root's secret-bearing files
	// as the caller has read them already (egress.SecretValues, for the
	// egress filter): Root is then not walked a second time.
	Values []string
	// Repo is the GitHub repository (owner/name) the report is posted on:
	// cross-references to it stay live. "" (a Jira issue, local output)
	// neutralises every cross-reference.
	Repo string
}

// Result is a report made safe to post.
type Result struct {
	Markdown string
	// Redacted is how many values were replaced, per rule (gitleaks'
	// rule ids, "url-credentials", "secret-file-value").
	Redacted map[string]int
	// CutAt names the secret-bearing file the report was cut before, or "".
	CutAt string
	// Notes are what Markdown already ends with: the cut, the redactions.
	Notes []string
}

// N is how many values were redacted.
func (r Result) N() int {
	n := 0
	for _, c := range r.Redacted {
		n += c
	}
	return n
}

// Report makes the markdown of a report safe to post (see the package
// comment) and ends it with notes saying what was cut and redacted. An
// unreadable checkout is an error: the report is not posted unchecked.
func Report(md string, o Options) (Result, error) {
	p, err := NewPublisher(o)
	if err != nil {
		return Result{}, err
	}
	return p.Report(md), nil
}

// Publisher makes many texts from one checkout safe to post (the fields of
// a structured report), reading the checkout's secret-bearing files once.
type Publisher struct {
	f      *egress.Filter
	files  *egress.FilePolicy
	values *egress.Values // of the checkout's secret-bearing files
	repo   string
}

// NewPublisher reads what o names; an unreadable checkout is an error.
func NewPublisher(o Options) (*Publisher, error) {
	p := &Publisher{f: o.Filter, files: o.Files, repo: o.Repo}
	if p.f == nil {
		p.f = egress.Default()
	}
	if p.files == nil {
		p.files = p.f.Files()
	}
	switch {
	case o.Values != nil:
		p.values = egress.CompileValues(o.Values)
	case o.Root != "":
		values, err := egress.SecretValues(o.Root, p.files)
		if err != nil {
			return nil, err
		}
		p.values = egress.CompileValues(values)
	}
	return p, nil
}

// Report is the package's Report with the publisher's options.
func (p *Publisher) Report(md string) Result {
	f, files := p.f, p.files
	res := Result{Redacted: map[string]int{}}
	if len(md) > MaxBytes {
		md = capped(md)
		res.Notes = append(res.Notes, fmt.Sprintf("The report was longer than %d KiB; the rest was cut.", MaxBytes>>10))
	}
	if cut, file := quoteCut(md, files); cut >= 0 {
		md, res.CutAt = strings.TrimRight(md[:cut], "\n "), file
		res.Notes = append(res.Notes, fmt.Sprintf("The rest of this report was cut here: it would have quoted `%s`, "+
			"a secret-bearing file relay does not publish.", strings.ReplaceAll(file, "`", "")))
	}
	var n int
	if md, n = p.values.Replace(md); n > 0 {
		res.Redacted[egress.ValueRule] += n
	}
	redact := func() {
		r := f.Redact(md)
		md = r.Text
		for k, v := range r.Counts {
			res.Redacted[k] += v
		}
	}
	redact()
	md = SanitizeFor(md, p.repo)
	redact()
	if n := res.N(); n > 0 {
		res.Notes = append(res.Notes, redactedNote(res.Redacted))
	}
	res.Markdown = strings.TrimRight(md, "\n")
	for _, n := range res.Notes {
		res.Markdown += "\n\n> Note: " + n
	}
	return res
}

// Text makes a text that is not a report (an issue quoted in a report's
// JSON) safe to post: the values of secret-bearing files and other secrets
// redacted, sanitised as a report is, without notes; a text over MaxBytes
// ends at MaxBytes with a marker saying the rest is left out.
func (p *Publisher) Text(s string) string {
	long := len(s) > MaxBytes
	if long {
		s = capped(s)
	}
	s, _ = p.values.Replace(s)
	s = SanitizeFor(p.f.String(s), p.repo)
	s = p.f.String(s)
	if long {
		s += fmt.Sprintf("\n\n(… the rest, over %d KiB, is left out)", MaxBytes>>10)
	}
	return s
}

// capped is md cut at a line (or word) end before MaxBytes.
func capped(md string) string {
	cut := strings.LastIndexByte(md[:MaxBytes], '\n')
	if cut < 0 {
		cut = strings.LastIndexAny(md[:MaxBytes], " \t")
	}
	if cut < 0 {
		cut = MaxBytes
		for cut > 0 && !utf8.RuneStart(md[cut]) {
			cut--
		}
	}
	return md[:cut]
}

// redactedNote says how many values were redacted, by rule.
func redactedNote(counts map[string]int) string {
	rules := make([]string, 0, len(counts))
	total := 0
	for r, n := range counts {
		rules = append(rules, fmt.Sprintf("%s ×%d", r, n))
		total += n
	}
	sort.Strings(rules)
	word := "values"
	if total == 1 {
		word = "value"
	}
	return fmt.Sprintf("%d %s redacted (%s): relay does not publish secrets.", total, word, strings.Join(rules, ", "))
}
