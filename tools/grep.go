package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

//go:embed grep.md
var grepDesc string

var grepSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax, case-sensitive; prefix (?i) to ignore case). Escape metacharacters such as ( [ { . * + ? | \\ to match them literally."},
    "include": {"type": "string", "description": "Only search files matching this glob, relative to the repository root: \"*.go\", \"**/*_test.go\", \"net/http/**\", or a directory such as \"net/http\"."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Maximum matching lines shown (default 50)."},
    "context": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Context lines shown before and after each match (default 2)."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// GrepParams are the arguments of the grep tool.
type GrepParams struct {
	Pattern string `json:"pattern"`
	Include string `json:"include,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	Context *int   `json:"context,omitempty"` // nil: the default
}

// GrepMeta records what a grep call found; it is never shown to the model.
type GrepMeta struct {
	Pattern   string `json:"pattern"`
	Include   string `json:"include,omitempty"`
	Matches   int    `json:"matches"`   // matching lines found (a lower bound when TimedOut)
	Files     int    `json:"files"`     // files with at least one match
	Shown     int    `json:"shown"`     // matching lines in Content
	Truncated int    `json:"truncated"` // matching lines left out
	TimedOut  bool   `json:"timed_out,omitempty"`
	ExitCode  int    `json:"exit_code"`
}

// Grep searches file contents with ripgrep (`rg --json`).
type Grep struct {
	opts    Options
	rg      string
	box     sandbox
	onStart func(pid int) // test hook
}

// NewGrep returns the grep tool; it fails when rg is not installed.
func NewGrep(opts Options) (*Grep, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	rg, err := findProgram(o.RgPath, "ripgrep (rg)", "rg")
	if err != nil {
		return nil, err
	}
	return &Grep{opts: o, rg: rg, box: sandbox{root: o.Root}}, nil
}

// Name implements Tool.
func (g *Grep) Name() string { return GrepName }

// Description implements Tool.
func (g *Grep) Description() string { return grepDesc }

// Schema implements Tool.
func (g *Grep) Schema() json.RawMessage { return grepSchema }

// ReadOnly implements ReadOnlyTool.
func (g *Grep) ReadOnly() bool { return true }

// Call implements Tool.
func (g *Grep) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var p GrepParams
	if msg := decodeArgs(GrepName, grepSchema, args, &p); msg != "" {
		return Errorf("%s", msg), nil
	}
	return g.Run(ctx, p)
}

// Run searches with typed parameters.
func (g *Grep) Run(ctx context.Context, p GrepParams) (Result, error) {
	start := time.Now()
	meta := &GrepMeta{Pattern: p.Pattern, Include: p.Include}
	if p.Pattern == "" {
		return Errorf(`grep needs a non-empty "pattern", e.g. {"pattern": "func Serve", "include": "*.go"}`), nil
	}
	if msg := checkPattern("pattern", p.Pattern); msg != "" {
		return Errorf("%s", msg), nil
	}
	limit := p.Limit
	switch {
	case limit <= 0:
		limit = g.opts.GrepLimit
	case limit > MaxGrepLimit:
		limit = MaxGrepLimit
	}
	nctx := g.opts.GrepContext
	if p.Context != nil {
		nctx = min(max(*p.Context, 0), MaxGrepContext)
	}
	args := []string{"--json", "--no-config", "--no-require-git", "--hidden",
		"--glob", "!.git", "--glob", "!.relay", "--context", fmt.Sprint(nctx)}
	if p.Include != "" {
		inc, msg := g.include(p.Include)
		if msg != "" {
			return Errorf("%s", msg), nil
		}
		args = append(args, "--glob", inc)
	}
	args = append(args, "--regexp", p.Pattern, "--", ".")

	tctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	c := newGrepCollector(limit, nctx)
	res, err := runProc(tctx, g.rg, args, g.opts.Root, g.onStart, c.read)
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	meta.ExitCode, meta.TimedOut = res.exitCode, res.timedOut
	meta.Matches, meta.Files = c.matches, c.files
	defer func() {
		g.opts.Logger.Debug("tool done", "tool", GrepName, "dur", time.Since(start), "matches", meta.Matches, "truncated", meta.Truncated, "timed_out", meta.TimedOut)
	}()
	what := describeGrep(p)
	if c.matches == 0 {
		switch {
		case res.timedOut:
			return Result{Content: fmt.Sprintf("grep %s timed out after %s before finding anything; narrow the pattern or add include.", what, g.opts.Timeout), IsError: true, Meta: meta}, nil
		case res.exitCode == 1 || res.exitCode == 0:
			return Result{Content: fmt.Sprintf("No matches for %s. The pattern is a case-sensitive regex: try (?i), a shorter pattern, or drop include.", what), Meta: meta}, nil
		default:
			return Result{Content: rgErrorText(res.stderr, what), IsError: true, Meta: meta}, nil
		}
	}
	text, shown := c.render(g.opts.MaxOutputBytes, g.opts.MaxLineBytes)
	meta.Shown, meta.Truncated = shown, c.matches-shown
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s for %s", plural(c.matches, "matching line", "matching lines"), plural(c.files, "file", "files"), what)
	if shown < c.matches {
		fmt.Fprintf(&b, "; showing the first %d by path", shown)
	}
	b.WriteString(":\n")
	b.WriteString(strings.TrimRight(text, "\n"))
	if meta.Truncated > 0 {
		more := fmt.Sprint(meta.Truncated)
		if res.timedOut {
			more = "at least " + more
		}
		fmt.Fprintf(&b, "\ntruncated: %s more matches, narrow the pattern or add include", more)
		if p.Include == "" {
			b.WriteString(` (e.g. "include": "*.go")`)
		}
		b.WriteString(".")
	}
	if res.timedOut {
		fmt.Fprintf(&b, "\nnote: the search stopped at the %s timeout, so results are incomplete; narrow the pattern or add include.", g.opts.Timeout)
	} else if res.exitCode == 2 && strings.TrimSpace(res.stderr) != "" {
		fmt.Fprintf(&b, "\nnote: some files could not be searched: %s", cutLine(firstLine(res.stderr), 200))
	}
	return Result{Content: b.String(), Meta: meta}, nil
}

// include turns the include argument into an rg glob: a directory becomes
// "dir/**".
func (g *Grep) include(inc string) (string, string) {
	if msg := checkPattern("include", inc); msg != "" {
		return "", msg
	}
	inc = strings.TrimPrefix(filepath.ToSlash(inc), "./")
	if filepath.IsAbs(inc) {
		_, rel, err := g.box.resolve(inc)
		if err != nil {
			return "", err.Error()
		}
		inc = rel
	}
	if !strings.ContainsAny(inc, "*?[{") {
		if fi, err := os.Stat(filepath.Join(g.opts.Root, filepath.FromSlash(inc))); err == nil && fi.IsDir() {
			inc = strings.TrimSuffix(inc, "/") + "/**"
		}
	}
	return inc, ""
}

func describeGrep(p GrepParams) string {
	s := fmt.Sprintf("/%s/", p.Pattern)
	if p.Include != "" {
		s += fmt.Sprintf(" in %q", p.Include)
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// rgErrorText explains an rg failure (exit status 2) to the model.
func rgErrorText(stderr, what string) string {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = "rg failed without a message"
	}
	msg = cutLine(msg, 1000)
	switch {
	case strings.Contains(msg, "regex parse error") || strings.Contains(msg, "regex"):
		return fmt.Sprintf("Invalid regex for grep %s:\n%s\nHint: the pattern is a Rust regex; escape metacharacters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally (e.g. \"Serve\\\\(\"), or use a shorter pattern.", what, msg)
	case strings.Contains(msg, "glob"):
		return fmt.Sprintf("Invalid include glob for grep %s:\n%s\nHint: include is a glob such as \"*.go\", \"**/*_test.go\" or \"net/http/**\".", what, msg)
	case strings.Contains(msg, "No files were searched"):
		return fmt.Sprintf("No files matched include for grep %s; check the include glob (e.g. \"*.go\" or \"net/http/**\").", what)
	}
	return fmt.Sprintf("grep %s failed: %s", what, msg)
}

// grepLine is one line of rg output: a match or a context line.
type grepLine struct {
	n     int
	text  string
	match bool
}

// grepFile is the kept output of one file.
type grepFile struct {
	path    string
	lines   []grepLine
	matches int // matches in lines
}

// grepCollector reads `rg --json` and keeps the first limit matches by
// (path, line), whatever order rg's parallel walk emits files in.
//
// DESIGN: rg emits each file's messages contiguously (begin, context/match…,
// end) but files in any order. Kept files form a slice sorted by path;
// once it holds at least limit matches, files sorting after the last kept
// path cannot be shown, so their messages are only counted (a prefix check,
// no JSON decoding), and kept files that fall out of the top limit are
// dropped. Memory stays near limit lines and output is deterministic.
type grepCollector struct {
	limit, ctx int
	kept       []*grepFile
	keptMatch  int
	cur        *grepFile // file being read and kept; nil when only counting
	curLines   int       // matches of cur kept so far
	matches    int
	files      int
}

func newGrepCollector(limit, ctx int) *grepCollector {
	return &grepCollector{limit: limit, ctx: ctx}
}

var (
	rgBegin   = []byte(`{"type":"begin"`)
	rgMatch   = []byte(`{"type":"match"`)
	rgContext = []byte(`{"type":"context"`)
	rgEnd     = []byte(`{"type":"end"`)
)

type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, err := base64.StdEncoding.DecodeString(t.Bytes)
	if err != nil {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

type rgMsg struct {
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

func (c *grepCollector) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line (minified code): accumulate only if it will be decoded.
			if c.cur != nil || bytes.HasPrefix(line, rgBegin) {
				long = append(long[:0], line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					long = append(long, line...)
				}
				line = long
			} else {
				head := bytes.HasPrefix(line, rgMatch)
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if head {
					c.matches++
				}
				line = nil
			}
		}
		if len(line) > 0 {
			if perr := c.handle(line); perr != nil {
				return perr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func (c *grepCollector) handle(line []byte) error {
	switch {
	case bytes.HasPrefix(line, rgMatch):
		c.matches++
		if c.cur == nil {
			return nil
		}
		if c.curLines >= c.limit {
			return nil
		}
		m, err := decodeRg(line)
		if err != nil {
			return err
		}
		c.cur.lines = append(c.cur.lines, grepLine{n: m.Data.LineNumber, text: m.Data.Lines.String(), match: true})
		c.cur.matches++
		c.curLines++
	case bytes.HasPrefix(line, rgContext):
		if c.cur == nil {
			return nil
		}
		m, err := decodeRg(line)
		if err != nil {
			return err
		}
		n := m.Data.LineNumber
		if c.curLines >= c.limit {
			// Only the trailing context of the last kept match is wanted.
			last := c.lastMatch()
			if n > last+c.ctx {
				return nil
			}
		}
		c.cur.lines = append(c.cur.lines, grepLine{n: n, text: m.Data.Lines.String()})
	case bytes.HasPrefix(line, rgBegin):
		c.files++
		m, err := decodeRg(line)
		if err != nil {
			return err
		}
		path := strings.TrimPrefix(m.Data.Path.String(), "./")
		c.cur, c.curLines = nil, 0
		if c.keptMatch >= c.limit && len(c.kept) > 0 && path > c.kept[len(c.kept)-1].path {
			return nil // cannot be shown; count only
		}
		c.cur = &grepFile{path: path}
	case bytes.HasPrefix(line, rgEnd):
		if c.cur != nil && c.cur.matches > 0 {
			c.keep(c.cur)
		}
		c.cur = nil
	}
	return nil
}

func (c *grepCollector) lastMatch() int {
	for i := len(c.cur.lines) - 1; i >= 0; i-- {
		if c.cur.lines[i].match {
			return c.cur.lines[i].n
		}
	}
	return 0
}

func decodeRg(line []byte) (rgMsg, error) {
	var m rgMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("decode rg --json line: %w", err)
	}
	return m, nil
}

// keep inserts f in path order and drops files that can no longer be shown.
func (c *grepCollector) keep(f *grepFile) {
	i := sort.Search(len(c.kept), func(i int) bool { return c.kept[i].path >= f.path })
	c.kept = append(c.kept, nil)
	copy(c.kept[i+1:], c.kept[i:])
	c.kept[i] = f
	c.keptMatch += f.matches
	for len(c.kept) > 1 && c.keptMatch-c.kept[len(c.kept)-1].matches >= c.limit {
		c.keptMatch -= c.kept[len(c.kept)-1].matches
		c.kept = c.kept[:len(c.kept)-1]
	}
}

// render prints the first limit matches grouped by file, lines prefixed
// "path:N:" (match) or "path-N-" (context), runs separated by "--", files by
// a blank line, stopping before maxBytes. It returns the text and the number
// of matches shown.
func (c *grepCollector) render(maxBytes, maxLine int) (string, int) {
	var b strings.Builder
	shown := 0
	for fi, f := range c.kept {
		if shown >= c.limit {
			break
		}
		var fb strings.Builder
		if fi > 0 {
			fb.WriteByte('\n')
		}
		prev, last, fileShown := -1, -1, 0
		for _, l := range f.lines {
			if shown+fileShown >= c.limit && (l.match || l.n > last+c.ctx) {
				break
			}
			text := cutLine(strings.TrimRight(l.text, "\r\n"), maxLine)
			var entry string
			if l.match {
				entry = fmt.Sprintf("%s:%d:%s\n", f.path, l.n, text)
			} else {
				entry = fmt.Sprintf("%s-%d-%s\n", f.path, l.n, text)
			}
			if prev >= 0 && l.n > prev+1 {
				entry = "--\n" + entry
			}
			if b.Len()+fb.Len()+len(entry) > maxBytes {
				b.WriteString(fb.String())
				return b.String(), shown + fileShown
			}
			fb.WriteString(entry)
			prev = l.n
			if l.match {
				fileShown++
				last = l.n
			}
		}
		shown += fileShown
		b.WriteString(fb.String())
	}
	return b.String(), shown
}
