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
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/relayhq/relay/internal/safefs"
)

//go:embed read.md
var readDesc string

// ReadParams are the arguments of the read tool.
type ReadParams struct {
	File      string `json:"file" jsonschema:"Repository-relative path of the file, e.g. \"net/http/server.go\". A name glob or grep printed Go-quoted is passed as printed."`
	StartLine int    `json:"start_line,omitempty" jsonschema:"First line to show, 1-based (default 1)." schema:"minimum=1"`
	NumLines  int    `json:"num_lines,omitempty" jsonschema:"Number of lines to show (default: to the end of the file, at most 2000)." schema:"minimum=1"`
}

var readSchema = SchemaFor[ReadParams]()

// ReadMeta records what a read call showed; it is never shown to the model.
type ReadMeta struct {
	File       string `json:"file"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`    // last line shown; 0 when none
	TotalLines int    `json:"total_lines"` // lines in the file
	Truncated  bool   `json:"truncated"`   // stopped by a cap before the requested range ended
	Size       int64  `json:"size"`
}

// binarySniff is how much of a file is checked for NUL bytes.
const binarySniff = 8 << 10

// Read returns numbered lines of a file inside the repository.
type Read struct {
	opts Options
}

// NewRead returns the read tool.
func NewRead(opts Options) (*Read, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Read{opts: o}, nil
}

// Name implements Tool.
func (t *Read) Name() string { return ReadName }

// Description implements Tool.
func (t *Read) Description() string { return readDesc }

// Schema implements Tool.
func (t *Read) Schema() json.RawMessage { return readSchema }

// ReadOnly implements ReadOnlyTool.
func (t *Read) ReadOnly() bool { return true }

// Call implements Tool.
func (t *Read) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ReadParams
	if msg := decodeArgs(ReadName, readSchema, args, &p); msg != "" {
		return Errorf("%s", msg), nil
	}
	return t.Run(ctx, p)
}

// Run reads with typed parameters.
func (t *Read) Run(ctx context.Context, p ReadParams) (Result, error) {
	start := time.Now()
	file := strings.TrimSpace(p.File)
	if file == "" {
		return Errorf(`read needs "file", a repository-relative path, e.g. {"file": "cmd/relay/main.go", "start_line": 1, "num_lines": 100}`), nil
	}
	if p.StartLine < 0 || p.NumLines < 0 {
		return Errorf("start_line and num_lines must be positive (got start_line=%d, num_lines=%d)", p.StartLine, p.NumLines), nil
	}
	file = t.argPath(file)
	if rel, err := t.opts.root.Rel(file); err == nil {
		if d := t.opts.privateOf(rel); d != "" {
			return Errorf("%s", privateText(displayPath(rel), d)), nil
		}
		if err := t.opts.SecretFiles.Check(rel); err != nil {
			return Errorf("%v.%s", err, hint(t.opts.Hints.SecretFiles)), nil
		}
	}
	f, fi, err := t.opts.root.Open(file)
	if err != nil {
		return openErrorResult(err)
	}
	defer f.Close()
	rel, _ := t.opts.root.Rel(file) // cannot fail once Open succeeded
	if d := t.privateTarget(rel); d != "" {
		return Errorf("%s", privateText(displayPath(rel), d)), nil
	}
	if err := t.secretTarget(rel); err != nil {
		return Errorf("%v.%s", err, hint(t.opts.Hints.SecretFiles)), nil
	}
	if fi.IsDir() {
		return t.dir(f, rel), nil
	}
	tctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	meta := &ReadMeta{File: rel, Size: fi.Size()}
	res, err := t.lines(tctx, f, displayPath(rel), p, meta)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if tctx.Err() != nil {
			return Result{Content: fmt.Sprintf("read of %s stopped at the %s timeout; ask for a smaller range with start_line and num_lines.", displayPath(rel), t.opts.Timeout), IsError: true, Meta: meta}, nil
		}
		return Result{}, fmt.Errorf("read %s: %w", rel, err)
	}
	t.opts.Logger.Debug("tool done", "tool", ReadName, "dur", time.Since(start), "file", rel, "lines", meta.EndLine-meta.StartLine+1, "truncated", meta.Truncated)
	return res, nil
}

// privateTarget returns the private folder (privateDirs) that rel, once
// its symbolic links are resolved, lies in: a link such as cfg -> .git/config
// must not read what the name .git/config may not.
func (t *Read) privateTarget(rel string) string {
	real, err := filepath.EvalSymlinks(filepath.Join(t.opts.Root, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	r, err := filepath.Rel(t.opts.Root, real) // Root has its links resolved
	if err != nil {
		return ""
	}
	return t.opts.privateOf(filepath.ToSlash(r))
}

// secretTarget refuses a secret-bearing file by its name and, through a
// symbolic link (notes.txt -> .env), by its target's.
func (t *Read) secretTarget(rel string) error {
	if err := t.opts.SecretFiles.Check(rel); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(t.opts.Root, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	if r, err := filepath.Rel(t.opts.Root, real); err == nil {
		return t.opts.SecretFiles.Check(filepath.ToSlash(r))
	}
	return nil
}

// argPath undoes the quoting glob and grep use for odd file names
// (displayPath). A quoted argument whose unquoted name does not exist but
// whose literal name does is taken literally; which name is opened is
// still decided by the one open beneath the root.
func (t *Read) argPath(p string) string {
	u, ok := unquotePath(p)
	if !ok {
		return p
	}
	if _, err := t.opts.root.Lstat(u); err != nil {
		if _, lerr := t.opts.root.Lstat(p); lerr == nil {
			return p
		}
	}
	return u
}

// openErrorResult turns a Root.Open failure into the model's answer.
func openErrorResult(err error) (Result, error) {
	var pe *safefs.PathError
	if !errors.As(err, &pe) {
		return Result{}, fmt.Errorf("read: %w", err)
	}
	switch {
	case errors.Is(pe, fs.ErrNotExist):
		rel := pe.Path
		if u, ok := unquotePath(rel); ok {
			rel = u
		}
		rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
		hint, _ := json.Marshal("**/" + path.Base(rel))
		return Errorf("File not found: %s. Use glob to find the right path, e.g. {\"pattern\": %s}.", displayPath(rel), hint), nil
	}
	return Errorf("%s", pe.Msg), nil
}

// lines renders the requested lines of f; rel is the path as shown.
func (t *Read) lines(ctx context.Context, f *os.File, rel string, p ReadParams, meta *ReadMeta) (Result, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Errorf("Cannot read %s: %v", rel, err), nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return Result{Content: fmt.Sprintf("%s looks like a binary file (NUL byte in its first 8 KB, %d bytes in all); read only shows text files. Use grep to search text, or glob to find source files.", rel, meta.Size), IsError: true, Meta: meta}, nil
	}
	first := max(p.StartLine, 1)
	want := p.NumLines
	if want <= 0 || want > t.opts.ReadMaxLines {
		want = t.opts.ReadMaxLines
	}
	var (
		shown     []string
		bytesUsed int
		n         int // lines seen so far
		capped    bool
		long      []byte
	)
	reads := 0
	for {
		// The deadline is checked every 256 reads of at most 64 KB, so a
		// call on a huge file (or one that reads slowly) stops in time.
		if reads++; reads%256 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			n++
			inRange := n >= first && len(shown) < want && !capped
			total := len(line)
			lastSeg := line
			if errors.Is(err, bufio.ErrBufferFull) {
				// A line longer than the buffer (minified code): keep the
				// head for display, count the rest.
				long = append(long[:0], line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					if reads++; reads%256 == 0 && ctx.Err() != nil {
						return Result{}, ctx.Err()
					}
					line, err = br.ReadSlice('\n')
					total += len(line)
					lastSeg = line
					if inRange && len(long) < 2*DefaultReadLineBytes {
						long = append(long, line...)
					}
				}
				line = long
			}
			if inRange {
				text := strings.TrimRight(string(line), "\r\n")
				total -= len(lastSeg) - len(bytes.TrimRight(lastSeg, "\r\n"))
				if total > len(line) || len(text) > DefaultReadLineBytes {
					text = cutLineTotal(text, total, DefaultReadLineBytes)
				}
				if len(shown) > 0 && bytesUsed+len(text)+1 > t.opts.ReadMaxBytes {
					capped = true
				} else {
					shown = append(shown, text)
					bytesUsed += len(text) + 1
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				// A final line without "\n" was counted above; an empty tail was not.
				break
			}
			return Errorf("Cannot read %s: %v", rel, err), nil
		}
	}
	meta.TotalLines = n
	if n == 0 {
		return Result{Content: fmt.Sprintf("%s is empty (0 lines).", rel), Meta: meta}, nil
	}
	if first > n {
		return Result{Content: fmt.Sprintf("start_line %d is past the end of %s, which has %d lines; use start_line between 1 and %d.", first, rel, n, n), IsError: true, Meta: meta}, nil
	}
	last := first + len(shown) - 1
	meta.StartLine, meta.EndLine = first, last
	meta.Truncated = capped || (p.NumLines == 0 || p.NumLines > t.opts.ReadMaxLines) && last < n
	return Result{Content: numbered(shown, first, n, bytesUsed), Meta: meta}, nil
}

// numbered renders lines first.. with right-aligned numbers and, when the
// file has more, says which part was shown and where to continue.
func numbered(shown []string, first, n, bytesUsed int) string {
	last := first + len(shown) - 1
	width := len(strconv.Itoa(last))
	var b strings.Builder
	b.Grow(bytesUsed + len(shown)*(width+1))
	for i, s := range shown {
		num := strconv.Itoa(first + i)
		b.WriteString(strings.Repeat(" ", width-len(num)))
		b.WriteString(num)
		b.WriteByte('\t')
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if first > 1 || last < n {
		fmt.Fprintf(&b, "(showing lines %d–%d of %d", first, last, n)
		if last < n {
			fmt.Fprintf(&b, "; continue with start_line=%d", last+1)
		}
		b.WriteString(")")
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxDirEntries caps the entries listed when read is given a directory.
const maxDirEntries = 50

func (t *Read) dir(f *os.File, rel string) Result {
	ents, err := f.ReadDir(-1)
	if err != nil {
		return Errorf("%s is a directory and cannot be listed: %v", displayPath(rel), safefs.Errno(err))
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if t.opts.privateOf(path.Join(rel, e.Name())) != "" || privateDir(e.Name()) != "" {
			continue
		}
		n := displayPath(e.Name())
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	shown := displayPath(rel)
	if rel == "." {
		shown = "the repository root"
	}
	fmt.Fprintf(&b, "%s is a directory, not a file; read takes a file. It holds %s:\n", shown, plural(len(names), "entry", "entries"))
	for i, n := range names {
		if i == maxDirEntries {
			fmt.Fprintf(&b, "… and %d more\n", len(names)-maxDirEntries)
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	glob := "**"
	if rel != "." {
		glob = rel + "/**"
	}
	pat, _ := json.Marshal(glob)
	fmt.Fprintf(&b, `Read one of these files, or use glob (e.g. {"pattern": %s}) to list files below it.`, pat)
	return Result{Content: b.String(), IsError: true}
}
