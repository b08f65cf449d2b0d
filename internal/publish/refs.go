package publish

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// DESIGN: cross-references. GitHub turns "#123", "GH-123",
// "owner/repo#123" and the URL of an issue, pull request or discussion
// ("https://github.com/owner/repo/issues/123", bare or as a link) into a
// reference: the issue referred to shows "relay-bot mentioned this" in its
// timeline, and its subscribers may be notified. An issue (or a model it
// steers) could thus make the bot write on the timelines of any public
// repository. Outside code, a zero-width joiner is put where GitHub would
// read the reference — after the "#", after "GH-", before the owner of a
// URL's path — so the text reads the same and refers to nothing (a URL
// neutralised so no longer leads to the issue: its owner segment holds the
// joiner).
//
// References to the repository the report is posted on (Options.Repo) are
// kept: they reach only issues of the repository where the bot is installed
// and the issue was opened, whose author can write them there directly, and
// a report may need them ("see #12"). "#123" and "GH-123" name that
// repository, so they are kept when Options.Repo is set and neutralised
// when it is not (a Jira issue, local output). No maintained Go library
// extracts GitHub references, so the three forms are matched here, on
// GitHub's documented syntax; URLs are matched on any host (GitHub
// Enterprise has its own), so a look-alike URL of another forge
// (".../owner/repo/issues/7") is neutralised too.

// refURL matches the URL of an issue, pull request or discussion; group 1
// is where the owner starts, group 2 is owner/repo.
var refURL = regexp.MustCompile(`(?i)(?:https?://[^\s/?#<>()\[\]]+|\bgithub\.com)/(([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+))/(?:issues|pulls?|discussions)/[0-9]`)

// refGH matches GH-123; group 1 is where the number starts.
var refGH = regexp.MustCompile(`(?i)\bGH-([0-9])`)

// refMarks returns the offsets of src where a zero-width joiner neutralises
// a cross-reference outside code (code[i] marks code bytes) that does not
// name repo (owner/name; "" keeps none). The offsets are ascending and
// distinct.
func refMarks(src []byte, code []bool, repo string) []int {
	var marks []int
	mark := func(i int) {
		if i < len(src) && !code[i] {
			marks = append(marks, i)
		}
	}
	// The regular expressions run only where their literal part occurs:
	// most reports have neither, and a case-insensitive scan costs more
	// than the rest of the sanitising.
	lower := bytes.ToLower(src)
	if bytes.Contains(lower, []byte("/issues/")) || bytes.Contains(lower, []byte("/pull")) || bytes.Contains(lower, []byte("/discussions/")) {
		for _, m := range refURL.FindAllSubmatchIndex(src, -1) {
			if !strings.EqualFold(string(src[m[4]:m[5]]), repo) {
				mark(m[2])
			}
		}
	}
	if repo == "" && bytes.Contains(lower, []byte("gh-")) {
		for _, m := range refGH.FindAllSubmatchIndex(src, -1) {
			mark(m[2])
		}
	}
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '#' || !isDigit(src[i+1]) || code[i] {
			continue
		}
		if i > 0 && src[i-1] == '&' {
			continue // a character reference (&#64;), not an issue number
		}
		if q := qualifier(src[:i]); q != "" && !strings.EqualFold(q, repo) || q == "" && repo == "" {
			mark(i + 1)
		}
	}
	slices.Sort(marks)
	return slices.Compact(marks)
}

// qualifier is the owner/repo that ends before, or "".
func qualifier(before []byte) string {
	i := len(before)
	for i > 0 && isRepoByte(before[i-1]) {
		i--
	}
	name := before[i:]
	if i == 0 || before[i-1] != '/' || len(name) == 0 {
		return ""
	}
	j := i - 1
	for j > 0 && isRepoByte(before[j-1]) {
		j--
	}
	if j == i-1 {
		return ""
	}
	return string(before[j:])
}

func isRepoByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
