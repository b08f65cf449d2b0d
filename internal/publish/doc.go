// Package publish owns what relay writes where people read it: a report
// (the agent's scoping report, the offline context report) is made safe to
// post on an issue before its first post, because a tracker keeps every
// edit of a comment in its history.
//
// [Report] takes the markdown and, in this order:
//
//  0. cuts it at [MaxBytes] (GitHub's comment limit), with a note;
//  1. cuts it at the first quote of a secret-bearing file (a path:line
//     citation of one, or a code block introduced by its name), with a note;
//  2. replaces the values of the checkout's secret-bearing files wherever
//     they appear — verbatim, split across lines or wrapped in markdown,
//     lower-cased, in pieces of 16 characters, or base64- or hex-encoded —
//     with "[redacted: secret-file-value]" (internal/egress's
//     [egress.SecretValues] and [egress.Values], the implementation the
//     egress filter uses for every text leaving relay);
//  3. redacts secrets by their format with [egress.Filter] (gitleaks' rules);
//  4. sanitises the markdown: no raw HTML, no images, no link whose URL a
//     maintained sanitizer (bluemonday) refuses, no live @-mention of a
//     user or team (nor a Jira [~user] mention), no live cross-reference
//     ("#123", "owner/repo#123", "GH-123", an issue's URL) to another
//     repository than the one the report is posted on (Options.Repo; see
//     the DESIGN note in refs.go);
//  5. redacts once more (the sanitising could join what was apart) and says
//     in a note how many values were redacted.
//
// The report's text is steered by the issue (its title, its words) and by
// the model (which the issue can steer), so none of it is trusted.
//
// [Publisher] does the same for many texts from one checkout (the fields
// of a structured report) and reads its secret-bearing files once.
//
// DESIGN: why escape rather than strip, and why goldmark. The report is
// markdown posted as markdown, so an HTML sanitizer cannot run on its
// rendering: relay would have to convert HTML back to markdown. Instead
// goldmark (the CommonMark parser tracker/adf already uses) finds the code
// spans and code blocks, where every character is shown as typed; outside
// them "<" becomes "&lt;" (no tag, comment or autolink can then open),
// "![" becomes "!&#91;" (no image), "@name" gets a zero-width joiner after
// the "@" (no mention; so does an "@" before a character reference, and a
// reference that renders as "@", such as "&#64;", is shown as typed), and, when the document holds a link whose URL
// bluemonday's standard URL policy refuses (only http, https, mailto and
// relative URLs pass), every "[" becomes "&#91;" (no link at all). Character references never
// form markup, whatever precedes them, unlike a backslash escape. No
// maintained library neutralises mentions in markdown; GitHub's rule (an "@"
// after a non-word character, before a user or org/team name) is one
// comparison per byte, applied outside code only. The result
// is parsed again and checked; should a check still fail, the whole report
// is posted inside a code block instead.
//
// DESIGN: secret-file values. gitleaks finds secrets by their format;
// a value in a .env file may have none ("DB_PASSWORD=hunter2-prod-2024"),
// and a model told to leak one can split or encode it. relay knows the
// repository, so it reads the checkout's secret-bearing files (the
// [egress.FilePolicy] that keeps them out of the index) and looks for their
// values in the report with letters and digits alone compared, which sees
// through line breaks, list markers, quotes and code fences, and for the
// first 24 characters of their base64 and hex encodings. Case is ignored (a
// report lower-cases its search terms), and a value that looks generated
// (upper- and lower-case letters and digits) is also replaced piece by
// piece: any 16 of its letters and digits in a row that hold a digit, so a
// value cut in two by a label, or quoted in part, is caught; names of
// settings (AWS_SECRET_ACCESS_KEY) have no such pieces. This is an exact
// match against known values, not a detector, so it needs no rule list.
// The extraction and the matching live in internal/egress, whose filter
// also carries the values of the repository the CLI or the bot works on;
// a report reads its own checkout's values anyway, so it is covered
// whatever the process-wide filter holds.
package publish
