// Package adf owns relay's conversions between markdown and Atlassian's rich
// text: markdown → Atlassian Document Format (ADF, what Jira Cloud's REST v3
// takes for comments), ADF → plain markdown (to read Cloud descriptions and
// comments), and ADF → Jira wiki markup (what Jira Data Center's REST v2
// takes), so both Jira flavours render one report the same way.
//
// Markdown is parsed with goldmark (CommonMark plus the GFM table,
// strikethrough, task-list and autolink extensions) and the ADF is built from
// its syntax tree, never from regular expressions.
//
// # DESIGN
//
// ADF is stricter than markdown about what may nest in what: a list item must
// start with a paragraph, a blockquote holds no headings, a code mark combines
// only with a link. FromMarkdown never fails; it coerces what markdown allows
// and ADF does not into the nearest allowed shape (a heading inside a list
// item becomes a bold paragraph, a table inside a quote becomes one paragraph
// per row), so Jira never answers 400 INVALID_INPUT to a report. Validate
// encodes those structural rules; the fuzz test holds FromMarkdown to them.
//
// The ADF → markdown direction reads what Jira sends, which may hold nodes
// relay never writes (mentions, panels, media, task lists, extensions): it is
// tolerant, renders each as the closest readable text, and falls back to a
// node's children for anything unknown.
package adf
