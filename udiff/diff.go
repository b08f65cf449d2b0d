package udiff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// File change statuses.
const (
	StatusAdded    = "added"
	StatusDeleted  = "deleted"
	StatusModified = "modified"
	StatusRenamed  = "renamed"
)

// FileDiff is the change to one file in a unified diff.
type FileDiff struct {
	OldPath string `json:"old_path,omitempty"` // "" when the file is new
	NewPath string `json:"new_path,omitempty"` // "" when the file is deleted
	Status  string `json:"status"`
	Binary  bool   `json:"binary,omitempty"`
	Hunks   []Hunk `json:"hunks,omitempty"`
}

// Path is the file's current path (the old one for a deletion).
func (f FileDiff) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Hunk is one @@ section. Line numbers are 1-based.
type Hunk struct {
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Section  string `json:"section,omitempty"` // text after the closing @@ (often the enclosing function)
	Added    []int  `json:"added,omitempty"`   // new-side numbers of added lines
	Deleted  []int  `json:"deleted,omitempty"` // old-side numbers of deleted lines
	// Inserted holds, for each run of added lines that replaces nothing, the
	// old-side line number the run is inserted before.
	Inserted []int `json:"inserted,omitempty"`
	// AddedText and DeletedText are the changed lines' contents, in order.
	AddedText   []string `json:"-"`
	DeletedText []string `json:"-"`
	// NoNewlineOld/New record "\ No newline at end of file" markers.
	NoNewlineOld bool `json:"no_newline_old,omitempty"`
	NoNewlineNew bool `json:"no_newline_new,omitempty"`
}

// ChangedLines counts added plus deleted lines over all hunks.
func (f FileDiff) ChangedLines() int {
	n := 0
	for _, h := range f.Hunks {
		n += len(h.Added) + len(h.Deleted)
	}
	return n
}

var hunkRe = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$`)

// ErrEmpty is returned by Parse when the input holds no file change.
var ErrEmpty = errors.New("no file changes found: expected a unified diff (the output of git diff or diff -u)")

// Parse reads a unified diff (git or plain diff -u): renames, new and
// deleted files, mode-only changes, binary files and "\ No newline at end of
// file" markers. Text before the first file header (a commit message, an
// email) is skipped. Malformed input gives an error naming the line.
func Parse(r io.Reader) ([]FileDiff, error) {
	// A bufio.Reader rather than a Scanner: a diff line has no length limit
	// (minified code, generated data), and the parsed diff holds every
	// changed line anyway.
	br := bufio.NewReader(r)
	p := &parser{}
	for {
		text, rerr := br.ReadString('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, fmt.Errorf("read diff at line %d: %w", p.lineNo+1, rerr)
		}
		if text == "" && rerr != nil {
			break
		}
		p.lineNo++
		line := strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		var err error
		if p.hunk != nil && (p.oldLeft > 0 || p.newLeft > 0) {
			err = p.hunkLine(line)
		} else {
			err = p.headerLine(line)
		}
		if err != nil {
			return nil, err
		}
	}
	p.lineNo++
	return p.finish()
}

// parser is the state of one Parse.
type parser struct {
	out     []FileDiff
	starts  []int // the line each file's header starts at, for errors
	cur     *FileDiff
	hunk    *Hunk
	oldLeft int // lines of the current hunk still expected, per side
	newLeft int
	oldNext int
	newNext int
	lineNo  int
	lastTag byte // last hunk line's prefix, for "\ No newline"
	// sawMinus: the current file already had its --- line, so the next
	// --- starts another file (plain diff -u output has no diff --git).
	sawMinus bool
}

func (p *parser) finishHunk() error {
	if p.hunk == nil {
		return nil
	}
	if p.oldLeft > 0 || p.newLeft > 0 {
		h := p.hunk
		return fmt.Errorf("line %d: hunk @@ -%d,%d +%d,%d @@ ends early: %d old and %d new line(s) missing",
			p.lineNo, h.OldStart, h.OldLines, h.NewStart, h.NewLines, p.oldLeft, p.newLeft)
	}
	p.cur.Hunks = append(p.cur.Hunks, *p.hunk)
	p.hunk = nil
	return nil
}

func (p *parser) startFile(f FileDiff) {
	p.starts = append(p.starts, p.lineNo)
	p.out = append(p.out, f)
	p.cur = &p.out[len(p.out)-1]
	p.sawMinus = false
}

// hunkLine takes one line of a hunk that still expects lines.
func (p *parser) hunkLine(line string) error {
	hunk := p.hunk
	tag := byte(' ')
	if line != "" {
		tag = line[0]
	}
	switch tag {
	case ' ':
		if p.oldLeft == 0 || p.newLeft == 0 {
			return fmt.Errorf("line %d: context line %q exceeds the hunk's line counts", p.lineNo, clip(line))
		}
		p.oldLeft--
		p.newLeft--
		p.oldNext++
		p.newNext++
	case '+':
		if p.newLeft == 0 {
			return fmt.Errorf("line %d: added line %q exceeds the hunk's new line count", p.lineNo, clip(line))
		}
		if p.lastTag != '+' && p.lastTag != '-' {
			hunk.Inserted = append(hunk.Inserted, p.oldNext)
		}
		hunk.Added = append(hunk.Added, p.newNext)
		hunk.AddedText = append(hunk.AddedText, line[1:])
		p.newLeft--
		p.newNext++
	case '-':
		if p.oldLeft == 0 {
			return fmt.Errorf("line %d: deleted line %q exceeds the hunk's old line count", p.lineNo, clip(line))
		}
		hunk.Deleted = append(hunk.Deleted, p.oldNext)
		hunk.DeletedText = append(hunk.DeletedText, line[1:])
		p.oldLeft--
		p.oldNext++
	case '\\':
		markNoNewline(hunk, p.lastTag)
	default:
		return fmt.Errorf("line %d: unexpected %q inside hunk @@ -%d,%d +%d,%d @@ (want a line starting with ' ', '+', '-' or '\\')",
			p.lineNo, clip(line), hunk.OldStart, hunk.OldLines, hunk.NewStart, hunk.NewLines)
	}
	if tag != '\\' {
		p.lastTag = tag
	}
	return nil
}

// headerLine takes a line between hunks and files: file headers, hunk
// headers, git's extended headers, and anything else (skipped).
func (p *parser) headerLine(line string) error {
	cur := p.cur
	switch {
	case strings.HasPrefix(line, `\`) && p.hunk != nil:
		markNoNewline(p.hunk, p.lastTag)
	case strings.HasPrefix(line, "diff --git "):
		if err := p.finishHunk(); err != nil {
			return err
		}
		a, b, err := gitPaths(strings.TrimPrefix(line, "diff --git "))
		if err != nil {
			return fmt.Errorf("line %d: %v", p.lineNo, err)
		}
		p.startFile(FileDiff{OldPath: a, NewPath: b, Status: StatusModified})
	case strings.HasPrefix(line, "--- "):
		if err := p.finishHunk(); err != nil {
			return err
		}
		path := diffPath(strings.TrimPrefix(line, "--- "))
		if cur == nil || len(cur.Hunks) > 0 || p.sawMinus {
			p.startFile(FileDiff{OldPath: path, NewPath: path, Status: StatusModified})
		}
		p.cur.OldPath = path
		if path == "" {
			p.cur.Status = StatusAdded
		}
		p.sawMinus = true
	case strings.HasPrefix(line, "+++ "):
		if cur == nil {
			return fmt.Errorf("line %d: %q without a preceding --- line", p.lineNo, clip(line))
		}
		path := diffPath(strings.TrimPrefix(line, "+++ "))
		cur.NewPath = path
		if path == "" {
			cur.Status = StatusDeleted
		}
	case strings.HasPrefix(line, "@@"):
		return p.hunkHeader(line)
	case cur != nil && p.hunk == nil && strings.HasPrefix(line, "new file mode"):
		cur.Status, cur.OldPath = StatusAdded, ""
	case cur != nil && p.hunk == nil && strings.HasPrefix(line, "deleted file mode"):
		cur.Status, cur.NewPath = StatusDeleted, ""
	case cur != nil && p.hunk == nil && strings.HasPrefix(line, "rename from "):
		cur.OldPath, cur.Status = unquote(strings.TrimPrefix(line, "rename from ")), StatusRenamed
	case cur != nil && p.hunk == nil && strings.HasPrefix(line, "rename to "):
		cur.NewPath, cur.Status = unquote(strings.TrimPrefix(line, "rename to ")), StatusRenamed
	case cur != nil && (strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch"):
		cur.Binary = true
	default:
		// index lines, mode lines, similarity, binary patch data,
		// commit messages: nothing to record.
	}
	return nil
}

// hunkHeader starts a hunk at its "@@ -a,b +c,d @@" line.
func (p *parser) hunkHeader(line string) error {
	if p.cur == nil {
		return fmt.Errorf("line %d: hunk header before any file header (--- / +++ or diff --git)", p.lineNo)
	}
	if err := p.finishHunk(); err != nil {
		return err
	}
	h, err := parseHunkHeader(line)
	if err != nil {
		return fmt.Errorf("line %d: %w", p.lineNo, err)
	}
	p.hunk = &h
	p.oldLeft, p.newLeft = h.OldLines, h.NewLines
	p.oldNext, p.newNext = h.OldStart, h.NewStart
	if h.OldLines == 0 {
		p.oldNext++ // "-5,0": inserted after old line 5
	}
	p.lastTag = 0
	return nil
}

// finish closes the last hunk, settles renames and checks every file's
// header.
func (p *parser) finish() ([]FileDiff, error) {
	if err := p.finishHunk(); err != nil {
		return nil, err
	}
	if len(p.out) == 0 {
		return nil, ErrEmpty
	}
	for i := range p.out {
		f := &p.out[i]
		if f.Status == StatusModified && f.OldPath != f.NewPath && f.OldPath != "" && f.NewPath != "" {
			f.Status = StatusRenamed
		}
		if err := checkFileHeader(*f); err != nil {
			return nil, fmt.Errorf("line %d: %w", p.starts[i], err)
		}
	}
	return p.out, nil
}

// checkFileHeader refuses a file whose header lines contradict each other
// (a new file with an old path, a rename without both names…): review and
// eval would otherwise look up symbols in a file that does not exist.
func checkFileHeader(f FileDiff) error {
	switch {
	case f.Path() == "":
		return errors.New("file change without a path on either side (both /dev/null, or both new and deleted)")
	case f.Status == StatusAdded && f.OldPath != "":
		return fmt.Errorf("file %q is marked new (new file mode or --- /dev/null) but also has the old path %q", f.NewPath, f.OldPath)
	case f.Status == StatusDeleted && f.NewPath != "":
		return fmt.Errorf("file %q is marked deleted (deleted file mode or +++ /dev/null) but also has the new path %q", f.OldPath, f.NewPath)
	case f.Status == StatusRenamed && (f.OldPath == "" || f.NewPath == ""):
		return fmt.Errorf("rename of %q needs both rename from and rename to", f.Path())
	}
	return nil
}

func markNoNewline(h *Hunk, lastTag byte) {
	switch lastTag {
	case '-':
		h.NoNewlineOld = true
	case '+':
		h.NoNewlineNew = true
	default:
		h.NoNewlineOld, h.NoNewlineNew = true, true
	}
}

// gitPaths splits the "a/X b/Y" of a diff --git line. Paths with spaces are
// split at " b/" when both halves agree on the prefix convention.
func gitPaths(s string) (string, string, error) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok {
			return "", "", fmt.Errorf("malformed diff --git line %q", clip(s))
		}
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(unquote(strings.TrimSpace(rest)), "b/"), nil
	}
	if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		return s[2:i], s[i+3:], nil
	}
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", "", fmt.Errorf("malformed diff --git line %q (want a/PATH b/PATH)", clip(s))
	}
	return strings.TrimPrefix(f[0], "a/"), strings.TrimPrefix(f[1], "b/"), nil
}

func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '"' {
			u, err := strconv.Unquote(s[:i+1])
			return u, s[i+1:], err == nil
		}
	}
	return "", "", false
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// diffPath turns a ---/+++ operand into a repo path: "" for /dev/null, the
// a/ or b/ prefix and a trailing timestamp (diff -u) removed.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// maxDiffLine bounds the line numbers and counts of a hunk header, so that
// start+count cannot overflow; no source file has this many lines.
const maxDiffLine = 1<<31 - 1

// parseHunkHeader reads "@@ -a,b +c,d @@ section". A range that holds
// lines starts at line 1 or later; only an empty range (count 0) may name
// line 0, as git does for a new or deleted file.
func parseHunkHeader(line string) (Hunk, error) {
	m := hunkRe.FindStringSubmatch(line)
	if m == nil {
		return Hunk{}, fmt.Errorf("malformed hunk header %q (want @@ -a,b +c,d @@)", clip(line))
	}
	var nums [4]int
	for i, s := range m[1:5] {
		if s == "" { // "-a" alone means one line
			nums[i] = 1
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n > maxDiffLine {
			return Hunk{}, fmt.Errorf("hunk header %q: line number %s is out of range", clip(line), clip(s))
		}
		nums[i] = n
	}
	h := Hunk{OldStart: nums[0], OldLines: nums[1], NewStart: nums[2], NewLines: nums[3], Section: strings.TrimSpace(m[5])}
	if (h.OldStart == 0 && h.OldLines > 0) || (h.NewStart == 0 && h.NewLines > 0) {
		return Hunk{}, fmt.Errorf("hunk header %q: a range holding lines starts at line 1, not 0", clip(line))
	}
	return h, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
