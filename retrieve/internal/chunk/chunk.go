// Package chunk owns how the search index cuts a file into chunks, its
// retrievable units: functions, methods and types from the code graph
// (with the doc comment above them), markdown sections split at headings,
// and overlapping windows of lines over everything no symbol covers. It
// also owns a chunk's indexable text (its fields, capped) and its hash,
// the key of cached embeddings. Package retrieve re-exports Chunk and the
// kinds.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// Chunk kinds, the values of Chunk.Kind and of the kind filter.
const (
	KindFunction = "function" // package-level function
	KindMethod   = "method"   // method (member that is not a field)
	KindType     = "type"     // struct, interface, class, alias…
	KindSection  = "section"  // markdown section, split at headings
	KindText     = "text"     // a window of a file not covered by symbols
)

// Kinds lists the chunk kinds in a stable order.
var Kinds = []string{KindFunction, KindMethod, KindType, KindSection, KindText}

// Chunk is one retrievable unit: a symbol from the graph, a markdown section
// or a window of another text file. Its text is not stored: it is read from
// the file by line range when needed.
type Chunk struct {
	Path      string         `json:"path"` // repo-relative, slash-separated
	Language  string         `json:"language"`
	Kind      string         `json:"kind"`
	Name      string         `json:"name"`             // symbol name, heading, or "lines A-B"
	QName     string         `json:"qname,omitempty"`  // graph qualified name
	Loc       string         `json:"loc,omitempty"`    // location name "path/f.go:Recv.Method"
	Parent    string         `json:"parent,omitempty"` // receiver type, enclosing heading or package
	NodeID    graphdb.NodeID `json:"node_id,omitempty"`
	StartLine int            `json:"start_line"` // 1-based, inclusive; includes the doc comment
	EndLine   int            `json:"end_line"`
	Line      int            `json:"line,omitempty"` // the declaration line of a symbol
	Signature string         `json:"signature,omitempty"`
	Doc       string         `json:"doc,omitempty"`
	Hash      string         `json:"hash"` // hash of the chunk text: the embeddings cache key
}

// Dir returns the chunk's directory ("." for the root).
func (c Chunk) Dir() string { return path.Dir(c.Path) }

// Location is "path:line" of the declaration (of the first line for
// sections and text windows).
func (c Chunk) Location() string {
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d", c.Path, c.Line)
	}
	return fmt.Sprintf("%s:%d", c.Path, c.StartLine)
}

// Limits on the text a chunk contributes to the index.
const (
	MaxLines      = 150     // body lines tokenized per symbol
	MaxBytes      = 8 << 10 // bytes tokenized per chunk
	maxEmbedBytes = 2 << 10 // bytes sent to the embeddings endpoint per chunk
	windowLines   = 50      // text window size
	windowStep    = 40      // text window stride (10 lines overlap)
	maxDocLines   = 20      // doc-comment lines gathered above a symbol
)

// Fields is the indexable text of one chunk, split by field (the fields
// of bm25's BM25F).
type Fields struct {
	Name string // name, qname, parent
	Path string
	Body string // signature, doc, body
}

// EmbedText is what the embeddings endpoint sees for chunk c of fields t.
func (t Fields) EmbedText(c Chunk) string {
	s := c.Path + "\n" + t.Body
	if len(s) > maxEmbedBytes {
		s = s[:maxEmbedBytes]
	}
	return s
}

// File cuts one file into chunks. nodes are the graph nodes declared in
// the file (possibly none): functions, methods and types become chunks; the
// lines no symbol covers become text windows. Markdown is split at
// headings; other files are windowed.
func File(rel, lang string, lines []string, nodes []graphdb.Node) []Chunk {
	if lang == "markdown" {
		return markdownChunks(rel, lang, lines)
	}
	var out []Chunk
	covered := make([]bool, len(lines)+2)
	for _, n := range nodes {
		kind := KindOf(n)
		if kind == "" {
			continue
		}
		if n.StartLine <= 0 || n.StartLine > len(lines) {
			continue
		}
		end := min(max(n.EndLine, n.StartLine), len(lines))
		start := docStart(lines, n.StartLine)
		if !objectMember(n) {
			for i := start; i <= end; i++ {
				covered[i] = true
			}
		}
		out = append(out, Chunk{
			Path: rel, Language: lang, Kind: kind, Name: n.Name, QName: n.QName, Loc: n.Loc,
			Parent: parentName(n), NodeID: n.ID, StartLine: start, EndLine: end, Line: n.StartLine,
			Signature: n.Signature, Doc: n.Doc,
		})
	}
	// Windows over what no symbol covers (package clause, imports, var and
	// const blocks, or the whole file when the graph has nothing for it).
	runStart := 0
	flush := func(end int) {
		if runStart == 0 {
			return
		}
		out = append(out, windows(rel, lang, lines, runStart, end)...)
		runStart = 0
	}
	for i := 1; i <= len(lines); i++ {
		if covered[i] {
			flush(i - 1)
			continue
		}
		if runStart == 0 {
			runStart = i
		}
	}
	flush(len(lines))
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartLine != out[j].StartLine {
			return out[i].StartLine < out[j].StartLine
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// objectMember reports whether n is a function-valued property of an
// object literal (`const locale = { ordinal: n => …, formats: {…} }`, a
// function node of sub-kind "method"). It is a chunk of its own but leaves
// its lines to the text windows over the object: the object's other
// properties (names, format strings, tables) are text no symbol holds, and
// a one-line member would cut them into short windows, which BM25's length
// normalisation ranks above the code a report is about — three chunks for
// each of a hundred near-identical locale files instead of one.
func objectMember(n graphdb.Node) bool {
	return n.Kind == graphdb.KindFunction && n.SubKind == "method"
}

// KindOf is the kind of chunk node n makes, "" for none: functions,
// methods and types; not fields, modules, variables, nor synthetic nodes,
// which have no declaration and whose lines may span other symbols.
func KindOf(n graphdb.Node) string {
	switch {
	case n.Synthetic():
		return ""
	case n.Kind == graphdb.KindFunction:
		return KindFunction
	case n.Kind == graphdb.KindMember && n.SubKind != "field":
		return KindMethod
	case n.Kind == graphdb.KindType:
		return KindType
	}
	return ""
}

// windows cuts lines[start..end] (1-based, inclusive) into overlapping text
// windows, skipping runs with fewer than three non-blank lines.
func windows(rel, lang string, lines []string, start, end int) []Chunk {
	var out []Chunk
	for s := start; s <= end; s += windowStep {
		e := min(s+windowLines-1, end)
		nonBlank := 0
		for i := s; i <= e; i++ {
			if strings.TrimSpace(lines[i-1]) != "" {
				nonBlank++
			}
		}
		if nonBlank >= 3 {
			out = append(out, Chunk{Path: rel, Language: lang, Kind: KindText, Name: fmt.Sprintf("lines %d-%d", s, e), StartLine: s, EndLine: e})
		}
		if e == end {
			break
		}
	}
	return out
}

// markdownChunks splits a markdown file at ATX headings; each section's
// Parent is the nearest enclosing heading. Long sections are windowed.
func markdownChunks(rel, lang string, lines []string) []Chunk {
	type heading struct {
		level int
		text  string
	}
	var out []Chunk
	var stack []heading
	start, name, parent := 1, path.Base(rel), ""
	inFence := false
	emit := func(end int) {
		if end < start {
			return
		}
		for s := start; s <= end; s += 80 {
			e := min(s+99, end)
			out = append(out, Chunk{Path: rel, Language: lang, Kind: KindSection, Name: name, Parent: parent, StartLine: s, EndLine: e})
			if e == end {
				break
			}
		}
	}
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(l, "#") {
			continue
		}
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level > 6 || (len(l) > level && l[level] != ' ') {
			continue
		}
		emit(i)
		text := strings.TrimSpace(l[level:])
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		parent = ""
		if len(stack) > 0 {
			parent = stack[len(stack)-1].text
		}
		stack = append(stack, heading{level, text})
		start, name = i+1, text
	}
	emit(len(lines))
	return out
}

// docStart moves a symbol's first line up over the comment lines directly
// above it, so the chunk includes the whole doc comment.
func docStart(lines []string, start int) int {
	s := start
	for n := 0; n < maxDocLines && s > 1; n++ {
		l := strings.TrimSpace(lines[s-2])
		if strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "*") || strings.HasPrefix(l, "/*") {
			s--
			continue
		}
		break
	}
	return s
}

// parentName is the enclosing name of a symbol: the receiver type of a
// method ("Server" for "pkg.Server.Serve"), otherwise the package.
func parentName(n graphdb.Node) string {
	q := strings.TrimSuffix(n.QName, "."+n.Name)
	if n.Kind == graphdb.KindMember {
		if i := strings.LastIndexAny(q, "./"); i >= 0 {
			return q[i+1:]
		}
		return q
	}
	if i := strings.LastIndexByte(q, '/'); i >= 0 {
		return q[i+1:]
	}
	return q
}

// FieldsOf returns the indexable text of c, read from the file's lines.
func FieldsOf(c Chunk, lines []string) Fields {
	var body strings.Builder
	if c.Signature != "" {
		body.WriteString(c.Signature)
		body.WriteByte('\n')
	}
	if c.Doc != "" {
		body.WriteString(c.Doc)
		body.WriteByte('\n')
	}
	end := min(c.EndLine, len(lines), c.StartLine+MaxLines-1)
	for i := c.StartLine; i <= end; i++ {
		if body.Len() > MaxBytes {
			break
		}
		body.WriteString(lines[i-1])
		body.WriteByte('\n')
	}
	name := ""
	if c.Kind != KindText {
		name = c.Name + " " + c.Parent + " " + c.QName
	}
	return Fields{Name: name, Path: c.Path, Body: body.String()}
}

// HashString is the hash relay keys a text by: the first 12 bytes of its
// SHA-256, in hex.
func HashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// Hash is HashString(FieldsOf(c, ls).EmbedText(c)), the chunk's
// embeddings cache key, made from the first maxEmbedBytes of that text
// only. buf is scratch.
func Hash(c Chunk, ls []string, buf []byte) (string, []byte) {
	buf = append(buf[:0], c.Path...)
	buf = append(buf, '\n')
	if c.Signature != "" {
		buf = append(append(buf, c.Signature...), '\n')
	}
	if c.Doc != "" {
		buf = append(append(buf, c.Doc...), '\n')
	}
	// FieldsOf stops adding lines past MaxBytes, far beyond the
	// maxEmbedBytes kept here.
	end := min(c.EndLine, len(ls), c.StartLine+MaxLines-1)
	for i := c.StartLine; i <= end && len(buf) < maxEmbedBytes; i++ {
		buf = append(append(buf, ls[i-1]...), '\n')
	}
	h := sha256.Sum256(buf[:min(len(buf), maxEmbedBytes)])
	return hex.EncodeToString(h[:12]), buf
}
