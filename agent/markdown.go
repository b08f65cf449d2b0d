package agent

import (
	"fmt"
	"strings"
)

// Markdown renders the scoping report for people.
func (d *ScopeDoc) Markdown(issue string, reports []*Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scoping: %s\n\n", title(issue))
	fmt.Fprintf(&b, "**Size:** %s", d.Size)
	if d.SizeRationale != "" {
		fmt.Fprintf(&b, " — %s", d.SizeRationale)
	}
	fmt.Fprintf(&b, "\n\n## Summary\n\n%s\n", strings.TrimSpace(d.Summary))
	list := func(h string, items []string) {
		fmt.Fprintf(&b, "\n## %s\n\n", h)
		if len(items) == 0 {
			b.WriteString("_None._\n")
			return
		}
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(it))
		}
	}
	list("What the code establishes", d.Established)
	list("Still unknown", d.Unknowns)
	list("Edge cases", d.EdgeCases)
	list("Risks", d.Risks)
	b.WriteString("\n## Affected components\n\n")
	if len(d.AffectedComponents) == 0 {
		b.WriteString("_None identified._\n")
	} else {
		b.WriteString("| component | location | why |\n|---|---|---|\n")
		for _, c := range d.AffectedComponents {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(c.Name), cell(c.Path), cell(c.Reason))
		}
	}
	list("Open questions for the reporter", d.OpenQuestions)
	writeRetrievals(&b, reports)
	return strings.TrimRight(b.String(), "\n")
}

// fallbackMarkdown is the markdown-only report used when no structured report
// could be had: the model's prose if it wrote any, else the retriever
// reports themselves.
func fallbackMarkdown(issue string, reports []*Report, raw, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scoping: %s\n\n> Note: markdown-only report, not a structured scoping report: %s.\n", title(issue), why)
	if raw = strings.TrimSpace(raw); raw != "" {
		b.WriteString("\n## Gap detector's reply\n\n" + raw + "\n")
	}
	b.WriteString("\n## Retriever reports\n")
	if len(reports) == 0 {
		b.WriteString("\n_No reports were gathered._\n")
	}
	for i, r := range reports {
		fmt.Fprintf(&b, "\n### %d. %s\n\n%s\n", i+1, r.Query, r.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeRetrievals(b *strings.Builder, reports []*Report) {
	if len(reports) == 0 {
		return
	}
	b.WriteString("\n## Retrievals\n\n")
	for i, r := range reports {
		status := fmt.Sprintf("%d turns, %d tool calls", r.Steps, r.ToolCalls)
		if r.Incomplete {
			status += ", incomplete: " + r.Reason
		}
		fmt.Fprintf(b, "%d. %s (%s)\n", i+1, r.Query, status)
	}
}

// title is the first line of an issue, without a Markdown heading marker.
func title(issue string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(issue), "\n")
	first = strings.TrimSpace(strings.TrimLeft(first, "# "))
	if len(first) > 100 {
		first = first[:100] + "…"
	}
	return first
}

func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
