package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/relayhq/relay/internal/safefs"
)

// Citation is one path:line (or path:start-end) reference found in a report
// that does not hold in the checkout.
type Citation struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
	Problem string `json:"problem"` // e.g. "no such file", "the file has 20 lines"
}

// String returns the citation as written: path:line or path:start-end.
func (c Citation) String() string {
	if c.EndLine > 0 {
		return fmt.Sprintf("%s:%d-%d", c.Path, c.Line, c.EndLine)
	}
	return fmt.Sprintf("%s:%d", c.Path, c.Line)
}

// citationRE matches path:line and path:start-end where path has a file
// extension (main.go:12, internal/x/y.py:3-9).
var citationRE = regexp.MustCompile(`([\w.\-/]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,9}):(\d+)(?:-(\d+))?`)

// checkCitations verifies every path:line in text against the checkout at
// root and returns text, with a note appended listing the citations that do
// not hold, and those citations.
func checkCitations(root, text string) (string, []Citation) {
	bad := findBadCitations(root, text)
	if len(bad) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n\n> Note: these cited locations do not exist in the checkout; treat the claims that rely on them with suspicion:\n")
	for _, c := range bad {
		fmt.Fprintf(&b, "> - `%s`: %s\n", c, c.Problem)
	}
	return strings.TrimRight(b.String(), "\n"), bad
}

func findBadCitations(root, text string) []Citation {
	var bad []Citation
	for _, c := range FindCitations(root, text) {
		if c.Problem != "" {
			bad = append(bad, c)
		}
	}
	return bad
}

// FindCitations returns every distinct path:line and path:start-end in
// text, in order of first appearance, checked against the checkout at root:
// Path is made relative to root when it was written absolute or with "./",
// and Problem says why a citation does not hold ("" when it does).
func FindCitations(root, text string) []Citation {
	// Cited paths come from a model: open them beneath the root, so a
	// symlink out of the repository or a FIFO is neither followed nor read.
	files, err := safefs.OpenRoot(root)
	if err == nil {
		defer files.Close()
	}
	lines := map[string]int{} // path → line count, or noFile / outsideFile
	seen := map[string]bool{}
	var out []Citation
	for _, m := range citationRE.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && text[m[0]-1] == ':' { // part of a URL or a longer token
			continue
		}
		path := text[m[2]:m[3]]
		if strings.HasPrefix(path, "//") {
			continue // a URL
		}
		c := Citation{Path: path}
		c.Line, _ = strconv.Atoi(text[m[4]:m[5]])
		if m[6] >= 0 {
			c.EndLine, _ = strconv.Atoi(text[m[6]:m[7]])
		}
		key := c.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		rel, ok := relPath(root, path)
		if !ok {
			c.Problem = "outside the repository"
			out = append(out, c)
			continue
		}
		c.Path = rel
		n, ok := lines[rel]
		if !ok {
			n = countLines(files, rel)
			lines[rel] = n
		}
		switch {
		case n == outsideFile:
			c.Problem = "outside the repository"
		case n < 0:
			c.Problem = "no such file"
		case c.Line < 1 || c.Line > n:
			c.Problem = fmt.Sprintf("line %d is past the end; the file has %d lines", c.Line, n)
		case c.EndLine > 0 && (c.EndLine < c.Line || c.EndLine > n):
			c.Problem = fmt.Sprintf("range ends at %d; the file has %d lines", c.EndLine, n)
		}
		out = append(out, c)
	}
	return out
}

// relPath makes a cited path relative to root; ok is false when it points
// outside.
func relPath(root, p string) (string, bool) {
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(root, p)
		if err != nil {
			return "", false
		}
		p = r
	}
	p = filepath.ToSlash(filepath.Clean(strings.TrimPrefix(p, "./")))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// Line counts that are not counts.
const (
	noFile      = -1 // missing, unreadable or not a regular file
	outsideFile = -2 // resolves outside the repository
)

// countLines returns the number of lines of the regular file rel beneath
// files, noFile or outsideFile.
func countLines(files *safefs.Root, rel string) int {
	if files == nil {
		return noFile
	}
	f, fi, err := files.Open(rel)
	if err != nil {
		if errors.Is(err, safefs.ErrOutside) {
			return outsideFile
		}
		return noFile
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return noFile
	}
	n, last := 0, byte('\n')
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return noFile
		}
	}
	if last != '\n' {
		n++
	}
	return n
}
