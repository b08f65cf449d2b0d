package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// grepLine is one line of rg output: a match or a context line.
type grepLine struct {
	n     int
	text  string
	match bool
	cut   bool // rg sent only a preview: the line is longer than --max-columns
}

// grepFile is the kept output of one file.
type grepFile struct {
	path    string
	lines   []grepLine
	matches int // matches in lines
}

// grepCollector reads rg's output (`--null --line-number --no-heading`:
// one "path NUL number [:-] text" record per line, ':' for a match, '-' for
// context) and keeps the first limit matches by (path, line), whatever
// order rg's parallel walk emits files in.
//
// DESIGN: rg emits each file's lines contiguously but files in any order.
// Kept files form a slice sorted by path; once it holds at least limit
// matches, files sorting after the last kept path cannot be shown, so their
// records are only counted, and kept files that fall out of the top limit
// are dropped. Memory stays near limit lines and output is deterministic.
// The path ends at a NUL, which no file name holds, so names with newlines
// or colons parse unambiguously. Reading stops (and rg is killed) after
// maxBytes of output.
type grepCollector struct {
	limit, ctx int
	maxCount   int   // rg's --max-count
	maxBytes   int64 // output read before stopping; 0: no cap
	kept       []*grepFile
	keptMatch  int
	curPath    string
	started    bool      // curPath is set
	cur        *grepFile // file being read and kept; nil when only counting
	curLines   int       // matches of cur kept so far
	curCount   int       // matches of the current file, kept or not
	matches    int
	files      int
	capped     bool // a file reached maxCount
	stopped    bool // reading stopped at maxBytes
	// secret reports the secret-bearing files whose records are dropped;
	// nil drops none.
	secret  func(rel string) bool
	refused []string // secret-bearing files with matches, in rg's order
	lastRef string
}

func newGrepCollector(limit, ctx, maxCount int, maxBytes int64) *grepCollector {
	return &grepCollector{limit: limit, ctx: ctx, maxCount: maxCount, maxBytes: maxBytes}
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// maxKeptLine is how much of one over-long line is kept (rg's previews are
// shorter; this only guards against an rg that ignores --max-columns).
const maxKeptLine = 64 << 10

func (c *grepCollector) read(r io.Reader) error {
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 256<<10)
	defer c.endFile()
	for {
		if c.maxBytes > 0 && cr.n > c.maxBytes {
			c.stopped = true
			return errStop
		}
		path, err := br.ReadSlice(0)
		switch {
		case errors.Is(err, io.EOF):
			return nil // a record cut short by a kill is dropped
		case errors.Is(err, bufio.ErrBufferFull):
			return fmt.Errorf("rg output: a path longer than %d bytes", br.Size())
		case err != nil:
			return err
		}
		path = bytes.TrimPrefix(path[:len(path)-1], []byte("./"))
		drop := c.secret != nil && c.secret(string(path))
		if drop && string(path) != c.lastRef {
			c.lastRef = string(path)
			c.refused = append(c.refused, c.lastRef)
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line[:min(len(line), maxKeptLine)]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if room := maxKeptLine - len(long); room > 0 {
					long = append(long, line[:min(room, len(line))]...)
				}
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		n, match, text, ok := parseRgLine(line)
		if !ok {
			return fmt.Errorf("rg output: unexpected line %.80q", line)
		}
		if !drop {
			c.handle(path, n, match, text)
		}
		if err != nil {
			return nil
		}
	}
}

// parseRgLine splits "123:text\n" (a match) or "123-text\n" (context).
func parseRgLine(line []byte) (n int, match bool, text []byte, ok bool) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		n = n*10 + int(line[i]-'0')
		i++
	}
	if i == 0 || i == len(line) || (line[i] != ':' && line[i] != '-') {
		return 0, false, nil, false
	}
	return n, line[i] == ':', bytes.TrimRight(line[i+1:], "\r\n"), true
}

// rgPreview is what rg appends to a line cut at --max-columns.
var rgPreview = []byte(" [... omitted end of long line]")

func (c *grepCollector) handle(path []byte, n int, match bool, text []byte) {
	if !c.started || string(path) != c.curPath {
		c.endFile()
		c.beginFile(string(path))
	}
	if match {
		c.matches++
		if c.curCount++; c.curCount >= c.maxCount {
			c.capped = true
		}
		if c.cur == nil || c.curLines >= c.limit {
			return
		}
		c.cur.lines = append(c.cur.lines, newGrepLine(n, text, true))
		c.cur.matches++
		c.curLines++
		return
	}
	if c.cur == nil {
		return
	}
	if c.curLines >= c.limit && n > c.lastMatch()+c.ctx {
		return // only the trailing context of the last kept match is wanted
	}
	c.cur.lines = append(c.cur.lines, newGrepLine(n, text, false))
}

func newGrepLine(n int, text []byte, match bool) grepLine {
	cut := bytes.HasSuffix(text, rgPreview)
	if cut {
		text = text[:len(text)-len(rgPreview)]
		// The preview ends at a byte count, maybe inside a character.
		for k := 0; k < utf8.UTFMax-1 && len(text) > 0; k++ {
			if r, size := utf8.DecodeLastRune(text); r != utf8.RuneError || size != 1 {
				break
			}
			text = text[:len(text)-1]
		}
	}
	return grepLine{n: n, text: strings.ToValidUTF8(string(text), "\uFFFD"), match: match, cut: cut}
}

func (c *grepCollector) beginFile(path string) {
	c.files++
	c.curPath, c.started = path, true
	c.cur, c.curLines, c.curCount = nil, 0, 0
	if c.keptMatch >= c.limit && len(c.kept) > 0 && path > c.kept[len(c.kept)-1].path {
		return // cannot be shown; count only
	}
	c.cur = &grepFile{path: path}
}

func (c *grepCollector) endFile() {
	if c.cur != nil && c.cur.matches > 0 {
		c.keep(c.cur)
	}
	c.cur = nil
}

func (c *grepCollector) lastMatch() int {
	for i := len(c.cur.lines) - 1; i >= 0; i-- {
		if c.cur.lines[i].match {
			return c.cur.lines[i].n
		}
	}
	return 0
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
// a blank line, stopping before maxBytes. Odd file names are Go-quoted
// (displayPath). It returns the text and the number of matches shown.
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
		name := displayPath(f.path)
		prev, last, fileShown := -1, -1, 0
		for _, l := range f.lines {
			if shown+fileShown >= c.limit && (l.match || l.n > last+c.ctx) {
				break
			}
			text := cutLine(l.text, maxLine)
			if l.cut {
				text = cutPreview(l.text, maxLine)
			}
			sep := '-'
			if l.match {
				sep = ':'
			}
			entry := fmt.Sprintf("%s%c%d%c%s\n", name, sep, l.n, sep, text)
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

// cutPreview shortens rg's preview of an over-long line to max bytes (on a
// rune boundary); its full length is unknown, only that it exceeds the
// preview.
func cutPreview(s string, max int) string {
	cut := min(len(s), max)
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s … [line cut, longer than %d bytes]", s[:cut], len(s))
}
