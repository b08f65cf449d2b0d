package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

//go:embed glob.md
var globDesc string

// GlobParams are the arguments of the glob tool.
type GlobParams struct {
	Pattern string `json:"pattern" jsonschema:"Glob. Without a slash it matches file names anywhere (\"*.go\"); with a slash it matches the path from the repository root (\"net/http/*.go\", \"**/*_test.go\", \"net/http/**\")."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Maximum files listed (default 100)." schema:"minimum=1,maximum=2000"`
}

var globSchema = SchemaFor[GlobParams]()

// GlobMeta records what a glob call found; it is never shown to the model.
type GlobMeta struct {
	Pattern   string `json:"pattern"`
	Files     int    `json:"files"`     // files matched (a lower bound when TimedOut)
	Shown     int    `json:"shown"`     // files listed in Content
	Truncated int    `json:"truncated"` // files left out
	TimedOut  bool   `json:"timed_out,omitempty"`
}

// Glob lists files by pattern with fd, newest first.
type Glob struct {
	opts    Options
	fd      string
	onStart func(pid int) // test hook
}

// NewGlob returns the glob tool; it fails when fd (or Debian's fdfind) is
// not installed.
func NewGlob(opts Options) (*Glob, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	fd, err := findProgram(o.FdPath, "fd", "fd", "fdfind")
	if err != nil {
		return nil, err
	}
	return &Glob{opts: o, fd: fd}, nil
}

// Name implements Tool.
func (g *Glob) Name() string { return GlobName }

// Description implements Tool.
func (g *Glob) Description() string { return globDesc }

// Schema implements Tool.
func (g *Glob) Schema() json.RawMessage { return globSchema }

// ReadOnly implements ReadOnlyTool.
func (g *Glob) ReadOnly() bool { return true }

// Call implements Tool.
func (g *Glob) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var p GlobParams
	if msg := decodeArgs(GlobName, globSchema, args, &p); msg != "" {
		return Errorf("%s", msg), nil
	}
	return g.Run(ctx, p)
}

// globFile is one listed file.
type globFile struct {
	path  string
	mtime int64
}

// Run lists files with typed parameters.
func (g *Glob) Run(ctx context.Context, p GlobParams) (Result, error) {
	start := time.Now()
	meta := &GlobMeta{Pattern: p.Pattern}
	pat, msg := g.pattern(p.Pattern)
	if msg != "" {
		return Errorf("%s", msg), nil
	}
	limit := p.Limit
	switch {
	case limit <= 0:
		limit = g.opts.GlobLimit
	case limit > MaxGlobLimit:
		limit = MaxGlobLimit
	}
	files, res, err := g.list(ctx, pat)
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	meta.Files, meta.TimedOut = len(files), res.timedOut
	defer func() {
		g.opts.Logger.Debug("tool done", "tool", GlobName, "dur", time.Since(start), "files", meta.Files, "truncated", meta.Truncated, "timed_out", meta.TimedOut)
	}()
	if len(files) == 0 {
		return g.noMatch(p.Pattern, pat, res, meta), nil
	}
	return Result{Content: g.render(p.Pattern, files, res, limit, meta), Meta: meta}, nil
}

// list runs fd for the normalised pattern and returns the files it found
// with their modification times.
func (g *Glob) list(ctx context.Context, pat string) ([]globFile, procResult, error) {
	args := []string{"--glob", "--type", "f", "--hidden", "--exclude", ".git", "--exclude", ".relay", "--color", "never", "--print0"}
	if !g.exists(".git") && g.exists(".gitignore") {
		// fd honours .gitignore only inside a git work tree; outside one,
		// pass the root's .gitignore explicitly so both tools skip the same files.
		args = append(args, "--ignore-file", filepath.Join(g.opts.Root, ".gitignore"))
	}
	if strings.Contains(pat, "/") {
		args = append(args, "--full-path", "--", globEscape(g.opts.Root)+"/"+pat)
	} else {
		args = append(args, "--", pat)
	}
	tctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	var files []globFile
	res, err := runProc(tctx, g.opts.Procs, g.fd, args, g.opts.Root, g.opts.Unconfined, g.onStart, func(r io.Reader) error {
		// --print0: a name may hold a newline; only NUL cannot occur in one.
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sc.Split(splitNUL)
		for sc.Scan() {
			rel := strings.TrimPrefix(sc.Text(), "./")
			if rel == "" {
				continue
			}
			var mt int64
			if fi, err := g.opts.root.Lstat(rel); err == nil {
				mt = fi.ModTime().UnixNano()
			} else if errors.Is(err, fs.ErrNotExist) {
				continue // deleted while listing
			}
			files = append(files, globFile{path: filepath.ToSlash(rel), mtime: mt})
		}
		return sc.Err()
	})
	return files, res, err
}

// noMatch says why nothing was listed: no process slot, a timeout, an
// invalid pattern, or no match (with a hint on how slashes match).
func (g *Glob) noMatch(pattern, pat string, res procResult, meta *GlobMeta) Result {
	switch {
	case res.waited:
		return Result{Content: fmt.Sprintf("glob %q did not start: all %d search processes stayed busy for the %s timeout; retry, or run fewer searches at once.", pattern, g.opts.Procs.Cap(), g.opts.Timeout), IsError: true, Meta: meta}
	case res.timedOut:
		return Result{Content: fmt.Sprintf("glob %q timed out after %s before finding anything; narrow the pattern.", pattern, g.opts.Timeout), IsError: true, Meta: meta}
	case res.exitCode != 0 && strings.TrimSpace(res.stderr) != "":
		return Result{Content: fmt.Sprintf("Invalid glob %q: %s\nHint: use patterns such as \"*.go\", \"**/*_test.go\" or \"net/http/*.go\".", pattern, cutLine(strings.TrimSpace(res.stderr), 500)), IsError: true, Meta: meta}
	}
	hint := ""
	if !strings.Contains(pat, "/") {
		hint = " Without a slash the pattern matches file names only; use \"**/dir/*.ext\" to match directories."
	} else if !strings.HasPrefix(pat, "**/") {
		hint = " With a slash the pattern matches from the repository root; prefix \"**/\" to match at any depth."
	}
	return Result{Content: fmt.Sprintf("No files match %q.%s", pattern, hint), Meta: meta}
}

// render lists files newest first, at most limit of them and
// MaxOutputBytes in all, saying what was left out.
func (g *Glob) render(pattern string, files []globFile, res procResult, limit int, meta *GlobMeta) string {
	sort.Slice(files, func(i, j int) bool {
		if files[i].mtime != files[j].mtime {
			return files[i].mtime > files[j].mtime
		}
		return files[i].path < files[j].path
	})
	var body strings.Builder
	shown := 0
	for _, f := range files {
		name := displayPath(f.path)
		if shown >= limit || body.Len()+len(name)+1 > g.opts.MaxOutputBytes {
			break
		}
		body.WriteString(name)
		body.WriteByte('\n')
		shown++
	}
	meta.Shown, meta.Truncated = shown, len(files)-shown
	var b strings.Builder
	verb := "match"
	if len(files) == 1 {
		verb = "matches"
	}
	fmt.Fprintf(&b, "%s %s %q (newest first", plural(len(files), "file", "files"), verb, pattern)
	if shown < len(files) {
		fmt.Fprintf(&b, ", showing %d", shown)
	}
	b.WriteString("):\n")
	b.WriteString(body.String())
	if meta.Truncated > 0 {
		more := fmt.Sprint(meta.Truncated)
		if res.timedOut {
			more = "at least " + more
		}
		fmt.Fprintf(&b, "truncated: %s more files, narrow the pattern.\n", more)
	}
	if res.timedOut {
		fmt.Fprintf(&b, "note: the listing stopped at the %s timeout, so it is incomplete; narrow the pattern.\n", g.opts.Timeout)
	}
	return strings.TrimRight(b.String(), "\n")
}

// pattern normalises a glob: "./" and a leading "/" inside the root are
// dropped, a directory name becomes "dir/**", and escapes are refused.
func (g *Glob) pattern(p string) (string, string) {
	if strings.TrimSpace(p) == "" {
		return "", `glob needs a non-empty "pattern", e.g. {"pattern": "**/*_test.go"}`
	}
	if msg := checkPattern("pattern", p); msg != "" {
		return "", msg
	}
	p = filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		if !strings.ContainsAny(p, "*?[{") {
			rel, err := g.opts.root.Rel(p)
			if err != nil {
				return "", err.Error()
			}
			p = rel
		} else if root := filepath.ToSlash(g.opts.Root) + "/"; strings.HasPrefix(p, root) {
			p = strings.TrimPrefix(p, root)
		} else {
			return "", fmt.Sprintf("pattern %q is outside the repository; patterns are relative to the repository root (e.g. \"net/http/*.go\")", p)
		}
	}
	for strings.HasPrefix(p, "./") {
		p = strings.TrimPrefix(p, "./")
	}
	if p == "" || p == "." {
		return "**", ""
	}
	if strings.HasSuffix(p, "/") {
		return p + "**", ""
	}
	if !strings.ContainsAny(p, "*?[{") {
		if fi, err := g.opts.root.Stat(p); err == nil && fi.IsDir() {
			return p + "/**", ""
		}
	}
	return p, ""
}

// globEscape escapes glob metacharacters in a literal path.
func globEscape(s string) string {
	s = filepath.ToSlash(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exists reports whether the repository-relative name exists (without
// following a final symlink).
func (g *Glob) exists(name string) bool {
	_, err := g.opts.root.Lstat(name)
	return err == nil
}

// splitNUL is a bufio.SplitFunc for NUL-terminated records.
func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
