package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/relayhq/relay/internal/publish"
	"github.com/relayhq/relay/tracker"
)

// Related and duplicate issues. Every scoped issue's localization (its
// ranked files and functions) is kept in the queue's database, table
// relay_localization, keyed by the normalised issue key, so every process
// on a shared PostgreSQL queue compares against all of them. A new report
// lists the earlier issues of the same repository whose localization
// overlaps its own most, with the score, and says "possible duplicate of
// #N" when the best score reaches DuplicateThreshold.
//
// DESIGN: the score is a rank-weighted Jaccard index. An item at rank r
// (1 first) weighs 1/r, so two reports that agree on their first file
// count for more than two that share their tenth. For files and for
// functions separately, score = Σ min(wA, wB) / Σ max(wA, wB) over the union
// of items; the issue's score is the mean of the two when both issues have
// functions, else the files' score. It is symmetric, 1 for identical
// rankings and 0 for disjoint ones. The threshold was measured on real
// duplicate pairs against the non-duplicate pairs of the same repositories
// (related_real_test.go; BENCHMARKS.md, "Related and duplicate issues").

const createLocalizationTableSQL = `
CREATE TABLE IF NOT EXISTS relay_localization (
	job_key   TEXT PRIMARY KEY,
	repo      TEXT NOT NULL,
	doc       TEXT NOT NULL,
	scoped_at BIGINT NOT NULL
)`

// DuplicateThreshold is the score at or above which a report says
// "possible duplicate of": measured on real duplicate pairs (BENCHMARKS.md).
const DuplicateThreshold = 0.8

// relatedListed is how many related issues a report lists at most.
const relatedListed = 3

// relatedScanned bounds how many earlier issues of a repository a new
// report is compared with (the most recently scoped first).
const relatedScanned = 5000

// Localization is where an issue's report localizes it: files and
// functions (location names), best first.
type Localization struct {
	Files     []string `json:"files"`
	Functions []string `json:"functions,omitempty"`
}

// keptFiles and keptFunctions bound the files and functions of a localization that are kept
// and compared (the offline report's depth): ranks past them weigh little.
const (
	keptFiles     = 10
	keptFunctions = 15
)

// Top is l cut to the files and functions that are kept and compared.
func (l Localization) Top() Localization {
	return Localization{Files: l.Files[:min(len(l.Files), keptFiles)], Functions: l.Functions[:min(len(l.Functions), keptFunctions)]}
}

// Empty says there is nothing to compare.
func (l Localization) Empty() bool { return len(l.Files) == 0 && len(l.Functions) == 0 }

// LocalizedIssue is one issue's kept localization.
type LocalizedIssue struct {
	Ref          tracker.Ref  `json:"ref"`
	Title        string       `json:"title"`
	Localization Localization `json:"localization"`
}

// RelatedIssue is an earlier issue and how much its localization overlaps.
type RelatedIssue struct {
	LocalizedIssue
	Score float64
}

// Overlap is the rank-weighted Jaccard score of two localizations (see
// the DESIGN note above): 0 (disjoint) to 1 (the same ranking).
func Overlap(a, b Localization) float64 {
	files := weightedJaccard(a.Files, b.Files)
	if len(a.Functions) == 0 || len(b.Functions) == 0 {
		return files
	}
	return (files + weightedJaccard(a.Functions, b.Functions)) / 2
}

func weightedJaccard(a, b []string) float64 {
	wa, wb := rankWeights(a), rankWeights(b)
	var lo, hi float64
	for k, x := range wa {
		y := wb[k]
		lo += min(x, y)
		hi += max(x, y)
	}
	for k, y := range wb {
		if _, ok := wa[k]; !ok {
			hi += y
		}
	}
	if hi == 0 {
		return 0
	}
	return lo / hi
}

// rankWeights weighs the item at rank r 1/r; a repeated item keeps its
// best rank.
func rankWeights(items []string) map[string]float64 {
	w := make(map[string]float64, len(items))
	for i, it := range items {
		if _, ok := w[it]; !ok {
			w[it] = 1 / float64(i+1)
		}
	}
	return w
}

// relatedRepo groups issues: those of one repository of one tracker.
func relatedRepo(ref tracker.Ref) string { return ref.Source + ":" + ref.Repo }

// SaveLocalization keeps issue's localization (replacing an earlier one of
// the same issue).
func (q *Queue) SaveLocalization(ctx context.Context, issue LocalizedIssue) error {
	doc, err := json.Marshal(issue)
	if err != nil {
		return fmt.Errorf("encode the localization of %s: %w", issue.Ref.Key(), err)
	}
	_, err = q.b.exec(ctx, `INSERT INTO relay_localization (job_key, repo, doc, scoped_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (job_key) DO UPDATE SET repo = excluded.repo, doc = excluded.doc, scoped_at = excluded.scoped_at`,
		issue.Ref.Key(), relatedRepo(issue.Ref), string(doc), time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("keep the localization of %s: %w", issue.Ref.Key(), err)
	}
	return nil
}

// RelatedIssues returns the earlier issues of issue's repository whose
// localization overlaps issue's, best first (ties: the lower key), at most
// n of them, none scoring 0. issue itself is never listed.
func (q *Queue) RelatedIssues(ctx context.Context, issue LocalizedIssue, n int) ([]RelatedIssue, error) {
	// One string back from both databases: the matching documents as a
	// JSON array, aggregated by the database.
	agg := `'[' || COALESCE(group_concat(doc, ','), '') || ']'`
	if q.Backend == "postgres" {
		agg = `'[' || COALESCE(string_agg(doc, ','), '') || ']'`
	}
	s, err := q.b.queryString(ctx, `SELECT `+agg+` FROM (SELECT doc FROM relay_localization
WHERE repo = $1 AND job_key <> $2 ORDER BY scoped_at DESC LIMIT $3) AS recent`,
		relatedRepo(issue.Ref), issue.Ref.Key(), relatedScanned)
	if err != nil {
		return nil, fmt.Errorf("read the localizations of %s: %w", relatedRepo(issue.Ref), err)
	}
	var earlier []LocalizedIssue
	if err := json.Unmarshal([]byte(s), &earlier); err != nil {
		return nil, fmt.Errorf("decode the localizations of %s: %w", relatedRepo(issue.Ref), err)
	}
	return rankRelated(issue.Localization, earlier, n), nil
}

// rankRelated scores earlier against loc and keeps the n best above 0.
func rankRelated(loc Localization, earlier []LocalizedIssue, n int) []RelatedIssue {
	var out []RelatedIssue
	for _, e := range earlier {
		if s := Overlap(loc, e.Localization); s > 0 {
			out = append(out, RelatedIssue{LocalizedIssue: e, Score: s})
		}
	}
	slices.SortFunc(out, func(a, b RelatedIssue) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Ref.Key(), b.Ref.Key())
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// issueLink is how a report names an issue of its own repository: #N on
// GitHub and GitLab (a live link once published), the key on Jira.
func issueLink(ref tracker.Ref) string {
	if ref.Source == tracker.Jira {
		return ref.Number
	}
	return "#" + ref.Number
}

// RelatedMarkdown is the report's section on related issues, "" when there
// are none. Titles are other people's text: the section is published
// (internal/publish) with the rest of the report.
func RelatedMarkdown(related []RelatedIssue) string {
	if len(related) == 0 {
		return ""
	}
	var b strings.Builder
	if related[0].Score >= DuplicateThreshold {
		fmt.Fprintf(&b, "**Possible duplicate of %s** (localization overlap %.2f).\n\n", issueLink(related[0].Ref), related[0].Score)
	}
	b.WriteString("### Related issues\n\nEarlier issues whose localization overlaps this one's (files and functions, rank-weighted; 1 is the same):\n\n")
	for _, r := range related {
		title := strings.Join(strings.Fields(r.Title), " ")
		fmt.Fprintf(&b, "- %s %s — %.2f\n", issueLink(r.Ref), title, r.Score)
	}
	return b.String()
}

// withRelated is the report's markdown with its related-issues section
// below it, and keeps the issue's localization for later reports. A
// failure to read or keep localizations costs the section, never the
// report: it is logged.
func (w *Worker) withRelated(ctx context.Context, issue tracker.Issue, rep Report, log *slog.Logger) string {
	if rep.Localization.Empty() {
		return rep.Markdown
	}
	this := LocalizedIssue{Ref: issue.Ref, Title: issue.Title, Localization: rep.Localization.Top()}
	related, err := w.queue.RelatedIssues(ctx, this, relatedListed)
	if err != nil {
		log.Warn("no related issues in this report", "err", err)
	}
	if err := w.queue.SaveLocalization(context.WithoutCancel(ctx), this); err != nil {
		log.Warn("later reports will not list this issue as related", "err", err)
	}
	section := RelatedMarkdown(related)
	if section == "" {
		return rep.Markdown
	}
	if len(related) > 0 {
		log.Info("related issues", "best", related[0].Ref.Key(), "score", related[0].Score)
	}
	p, err := publish.NewPublisher(publish.Options{Repo: OwnRepo(issue.Ref)})
	if err != nil {
		log.Warn("no related issues in this report", "err", err)
		return rep.Markdown
	}
	return rep.Markdown + "\n\n" + p.Report(section).Markdown
}
