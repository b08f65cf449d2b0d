package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed grep.md
var grepDesc string

// GrepParams are the arguments of the grep tool.
type GrepParams struct {
	Pattern string `json:"pattern" jsonschema:"Regular expression (Rust regex syntax, case-sensitive; prefix (?i) to ignore case). Escape metacharacters such as ( [ { . * + ? | \\ to match them literally."`
	Include string `json:"include,omitempty" jsonschema:"Only search files matching this glob, relative to the repository root: \"*.go\", \"**/*_test.go\", \"net/http/**\", or a directory such as \"net/http\"."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Maximum matching lines shown (default 50)." schema:"minimum=1,maximum=1000"`
	Context *int   `json:"context,omitempty" jsonschema:"Context lines shown before and after each match (default 2)." schema:"minimum=0,maximum=20"` // nil: the default
}

var grepSchema = SchemaFor[GrepParams]()

// GrepMeta records what a grep call found; it is never shown to the model.
type GrepMeta struct {
	Pattern   string `json:"pattern"`
	Include   string `json:"include,omitempty"`
	Matches   int    `json:"matches"`   // matching lines found (a lower bound when TimedOut)
	Files     int    `json:"files"`     // files with at least one match
	Shown     int    `json:"shown"`     // matching lines in Content
	Truncated int    `json:"truncated"` // matching lines left out
	TimedOut  bool   `json:"timed_out,omitempty"`
	Capped    bool   `json:"capped,omitempty"`  // a file reached rg's --max-count: Matches is a lower bound
	Stopped   bool   `json:"stopped,omitempty"` // rg was stopped at the output cap: Matches and Files are lower bounds
	ExitCode  int    `json:"exit_code"`
}

// Grep searches file contents with ripgrep (`rg --json`).
type Grep struct {
	opts      Options
	rg        string
	maxStdout int64         // bytes of rg output read before rg is stopped
	onStart   func(pid int) // test hook
}

// DefaultGrepMaxStdout bounds the rg output one grep reads; rg is killed
// once it is reached and the answer says its counts are lower bounds.
const DefaultGrepMaxStdout = 64 << 20

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
	return &Grep{opts: o, rg: rg, maxStdout: DefaultGrepMaxStdout}, nil
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
func (g *Grep) Run(ctx context.Context, p GrepParams) (out Result, _ error) {
	start := time.Now()
	meta := &GrepMeta{Pattern: p.Pattern, Include: p.Include}
	limit, nctx, inc, msg := g.check(p)
	if msg != "" {
		return Errorf("%s", msg), nil
	}
	c := newGrepCollector(limit, nctx, grepMaxCount(limit, nctx), g.maxStdout)
	c.secret = func(rel string) bool { _, s := g.opts.SecretFiles.Match(rel); return s }
	args := g.args(p.Pattern, inc, c.maxCount, nctx)
	tctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	res, err := runProc(tctx, g.opts.Procs, g.rg, args, g.opts.Root, g.opts.Unconfined, g.onStart, c.read)
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	meta.ExitCode, meta.TimedOut = res.exitCode, res.timedOut
	meta.Matches, meta.Files, meta.Capped, meta.Stopped = c.matches, c.files, c.capped, c.stopped
	defer func() {
		g.opts.Logger.Debug("tool done", "tool", GrepName, "dur", time.Since(start), "matches", meta.Matches, "truncated", meta.Truncated, "timed_out", meta.TimedOut)
	}()
	what := describeGrep(p)
	if len(c.refused) > 0 {
		defer func() {
			if out.Content != "" {
				out.Content += refusedNote(c.refused, g.opts.Hints.SecretFiles)
			}
		}()
	}
	if c.matches == 0 {
		switch {
		case res.waited:
			return Result{Content: fmt.Sprintf("grep %s did not start: all %d search processes stayed busy for the %s timeout; retry, or run fewer searches at once.", what, g.opts.Procs.Cap(), g.opts.Timeout), IsError: true, Meta: meta}, nil
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
	lower := res.timedOut || c.capped || c.stopped
	var b strings.Builder
	if lower {
		b.WriteString("at least ")
	}
	fmt.Fprintf(&b, "%s in %s for %s", plural(c.matches, "matching line", "matching lines"), plural(c.files, "file", "files"), what)
	if shown < c.matches {
		fmt.Fprintf(&b, "; showing the first %d by path", shown)
	}
	b.WriteString(":\n")
	b.WriteString(strings.TrimRight(text, "\n"))
	if meta.Truncated > 0 || lower {
		more := fmt.Sprint(meta.Truncated)
		if lower {
			more = "at least " + more
		}
		fmt.Fprintf(&b, "\ntruncated: %s more matches, narrow the pattern or add include", more)
		if p.Include == "" {
			b.WriteString(` (e.g. "include": "*.go")`)
		}
		b.WriteString(".")
	}
	switch {
	case res.timedOut:
		fmt.Fprintf(&b, "\nnote: the search stopped at the %s timeout, so results are incomplete; narrow the pattern or add include.", g.opts.Timeout)
	case c.stopped:
		fmt.Fprintf(&b, "\nnote: the search stopped after %d MB of results, so counts are lower bounds and some files were not searched; narrow the pattern or add include.", c.maxBytes>>20)
	case c.capped:
		fmt.Fprintf(&b, "\nnote: counting stopped at %d matching lines per file.", c.maxCount)
	case res.exitCode == 2 && strings.TrimSpace(res.stderr) != "":
		fmt.Fprintf(&b, "\nnote: some files could not be searched: %s", cutLine(firstLine(res.stderr), 200))
	}
	return Result{Content: b.String(), Meta: meta}, nil
}

// check validates p and returns the match limit, the context lines and the
// include glob to pass to rg, or a message for the model.
func (g *Grep) check(p GrepParams) (limit, nctx int, inc, msg string) {
	if p.Pattern == "" {
		return 0, 0, "", `grep needs a non-empty "pattern", e.g. {"pattern": "func Serve", "include": "*.go"}`
	}
	if msg := checkPattern("pattern", p.Pattern); msg != "" {
		return 0, 0, "", msg
	}
	// Like graph's depth: a negative bound is refused (it cannot mean
	// anything), one above the maximum is lowered to it.
	if p.Limit < 0 {
		return 0, 0, "", fmt.Sprintf("grep limit must be positive (got %d); leave it out for the default %d, at most %d", p.Limit, g.opts.GrepLimit, MaxGrepLimit)
	}
	if p.Context != nil && *p.Context < 0 {
		return 0, 0, "", fmt.Sprintf("grep context must be 0 or more (got %d); leave it out for the default %d, at most %d", *p.Context, g.opts.GrepContext, MaxGrepContext)
	}
	limit = p.Limit
	switch {
	case limit == 0:
		limit = g.opts.GrepLimit
	case limit > MaxGrepLimit:
		limit = MaxGrepLimit
	}
	nctx = g.opts.GrepContext
	if p.Context != nil {
		nctx = min(*p.Context, MaxGrepContext)
	}
	if p.Include != "" {
		if inc, msg = g.include(p.Include); msg != "" {
			return 0, 0, "", msg
		}
	}
	return limit, nctx, inc, ""
}

// grepMaxCount is rg's --max-count: enough to count up to MaxGrepLimit
// matching lines per file with little context, never fewer than limit, and
// at most about 5,000 printed lines per file with much context.
//
// DESIGN: rg searches files in parallel and holds each file's output in
// memory until the file is done; without a per-file cap a 200 MB file of
// matching lines drove it to 8–11 GB. --max-count bounds the lines and
// --max-columns (with its preview) the bytes per line, so a file's buffer
// stays within a few MB whatever the file. (rg's --json printer ignores
// --max-columns, which is why the standard printer with --null is parsed.)
func grepMaxCount(limit, ctx int) int {
	return max(limit, min(MaxGrepLimit, 5000/(1+2*ctx)))
}

// args builds rg's command line.
func (g *Grep) args(pattern, include string, maxCount, ctx int) []string {
	args := []string{"--no-config", "--no-require-git", "--hidden",
		"--glob", "!.git", "--glob", "!.relay",
		"--no-heading", "--with-filename", "--line-number", "--null", "--color", "never", "--no-context-separator",
		"--max-count", fmt.Sprint(maxCount),
		"--max-columns", fmt.Sprint(rgMaxColumns(g.opts.MaxLineBytes)), "--max-columns-preview",
		"--context", fmt.Sprint(ctx)}
	if include != "" {
		args = append(args, "--glob", include)
	}
	// Secret-bearing files rg need not open at all; after include, so an
	// include of "*.env" does not bring them back. The rest of the list
	// (patterns an exemption overlaps) is the collector's path check.
	for _, p := range g.opts.SecretFiles.ExcludeGlobs() {
		args = append(args, "--glob", "!"+p)
	}
	return append(args, "--regexp", pattern, "--", ".")
}

// rgMaxColumns is rg's --max-columns: longer lines arrive as a preview of
// that many bytes, which render cuts to maxLine anyway.
func rgMaxColumns(maxLine int) int { return max(4*maxLine, 1024) }

// include turns the include argument into an rg glob: a directory becomes
// "dir/**".
func (g *Grep) include(inc string) (string, string) {
	if msg := checkPattern("include", inc); msg != "" {
		return "", msg
	}
	inc = strings.TrimPrefix(filepath.ToSlash(inc), "./")
	if filepath.IsAbs(inc) {
		rel, err := g.opts.root.Rel(inc)
		if err != nil {
			return "", err.Error()
		}
		inc = rel
	}
	if !strings.ContainsAny(inc, "*?[{") {
		if fi, err := g.opts.root.Stat(inc); err == nil && fi.IsDir() {
			inc = strings.TrimSuffix(inc, "/") + "/**"
		}
	}
	return inc, ""
}

// refusedNote tells the model that matches in secret-bearing files were
// left out, naming the files (their names are not secrets), ended by the
// surface's hint saying who may allow one.
func refusedNote(files []string, h string) string {
	shown := files
	if len(shown) > 5 {
		shown = shown[:5]
	}
	names := make([]string, len(shown))
	for i, f := range shown {
		names[i] = displayPath(f)
	}
	more := ""
	if len(files) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	return fmt.Sprintf("\nnote: matches in %s left out: %s%s; relay does not show secret-bearing files.%s",
		plural(len(files), "secret-bearing file", "secret-bearing files"), strings.Join(names, ", "), more, hint(h))
}

// describeGrep names a grep call in the texts a model reads. The pattern is
// Go-quoted like include, not written /as a regex literal/: an MCP client's
// error texts pass through mcpserver's redaction, which would take
// "/Serve(/" for an absolute path outside the repository and hide it.
func describeGrep(p GrepParams) string {
	s := strconv.Quote(p.Pattern)
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
