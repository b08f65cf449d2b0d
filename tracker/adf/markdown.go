package adf

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// md is the markdown parser: CommonMark plus the GFM extensions the report
// writer uses. goldmark parsers are safe for concurrent use.
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify))

// FromMarkdown converts markdown to an ADF document. It never fails: what
// ADF cannot nest the way markdown does is coerced (see the package doc), raw
// HTML comments are dropped (they are invisible on GitHub too), other raw
// HTML is kept as literal text, and images become links (ADF media must be
// uploaded first).
func FromMarkdown(markdown string) *Node {
	src := []byte(markdown)
	root := md.Parser().Parse(text.NewReader(src))
	c := converter{src: src}
	doc := NewDoc()
	doc.Content = append(doc.Content, c.blocks(root)...)
	return doc
}

type converter struct{ src []byte }

// blocks converts the block children of n.
func (c *converter) blocks(n ast.Node) []*Node {
	var out []*Node
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		out = append(out, c.block(ch)...)
	}
	return out
}

func (c *converter) block(n ast.Node) []*Node {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return []*Node{{Type: "paragraph", Content: c.inlines(n, nil)}}
	case *ast.Heading:
		return []*Node{{Type: "heading", Attrs: map[string]any{"level": n.Level}, Content: c.inlines(n, nil)}}
	case *ast.ThematicBreak:
		return []*Node{{Type: "rule"}}
	case *ast.FencedCodeBlock:
		cb := codeBlock(c.lines(n))
		if lang := strings.TrimSpace(string(n.Language(c.src))); lang != "" {
			cb.Attrs = map[string]any{"language": lang}
		}
		return []*Node{cb}
	case *ast.CodeBlock:
		return []*Node{codeBlock(c.lines(n))}
	case *ast.Blockquote:
		return []*Node{{Type: "blockquote", Content: nonEmpty(coerce(c.blocks(n), quoteBlocks))}}
	case *ast.List:
		l := &Node{Type: "bulletList"}
		if n.IsOrdered() {
			l.Type = "orderedList"
			l.Attrs = map[string]any{"order": max(n.Start, 1)}
		}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			l.Content = append(l.Content, c.listItem(it))
		}
		if len(l.Content) == 0 {
			return nil
		}
		return []*Node{l}
	case *ast.HTMLBlock:
		return htmlParagraph(c.lines(n))
	case *extast.Table:
		return []*Node{c.table(n)}
	}
	// A block kind this converter does not know: keep its content.
	if n.HasChildren() {
		return c.blocks(n)
	}
	return nil
}

func (c *converter) listItem(n ast.Node) *Node {
	content := coerce(c.blocks(n), itemBlocks)
	if len(content) == 0 || (content[0].Type != "paragraph" && content[0].Type != "codeBlock") {
		content = append([]*Node{{Type: "paragraph"}}, content...)
	}
	return &Node{Type: "listItem", Content: content}
}

func (c *converter) table(n *extast.Table) *Node {
	t := &Node{Type: "table"}
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		cellType := "tableCell"
		if _, ok := row.(*extast.TableHeader); ok {
			cellType = "tableHeader"
		}
		r := &Node{Type: "tableRow"}
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			p := &Node{Type: "paragraph", Content: c.inlines(cell, nil)}
			r.Content = append(r.Content, &Node{Type: cellType, Content: []*Node{p}})
		}
		if len(r.Content) > 0 {
			t.Content = append(t.Content, r)
		}
	}
	if len(t.Content) == 0 {
		t.Content = []*Node{{Type: "tableRow", Content: []*Node{{Type: "tableCell", Content: []*Node{{Type: "paragraph"}}}}}}
	}
	return t
}

// lines joins the raw source lines of a code or HTML block.
func (c *converter) lines(n ast.Node) string {
	var b bytes.Buffer
	l := n.Lines()
	for i := range l.Len() {
		seg := l.At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

func codeBlock(s string) *Node {
	cb := &Node{Type: "codeBlock"}
	if s = strings.TrimSuffix(s, "\n"); s != "" {
		cb.Content = []*Node{{Type: "text", Text: s}}
	}
	return cb
}

// htmlParagraph keeps a raw HTML block as literal text, one hard break per
// line; a block that is only HTML comments (such as relay's own marker)
// renders as nothing, as it does on GitHub.
func htmlParagraph(s string) []*Node {
	rest := strings.TrimSpace(s)
	for strings.HasPrefix(rest, "<!--") {
		end := strings.Index(rest, "-->")
		if end < 0 {
			break
		}
		rest = strings.TrimSpace(rest[end+3:])
	}
	if rest == "" {
		return nil
	}
	p := &Node{Type: "paragraph"}
	for i, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if i > 0 {
			p.Content = append(p.Content, &Node{Type: "hardBreak"})
		}
		if line != "" {
			p.Content = append(p.Content, &Node{Type: "text", Text: line})
		}
	}
	return []*Node{p}
}

// coerce rewrites blocks that may not appear in a container (a list item, a
// blockquote) into allowed ones: a heading becomes a bold paragraph, a
// nested blockquote or panel is unwrapped, a table becomes one paragraph per
// row with cells separated by " | ", and a rule is dropped.
func coerce(blocks []*Node, allowed []string) []*Node {
	var out []*Node
	for _, b := range blocks {
		if containsType(allowed, b.Type) {
			out = append(out, b)
			continue
		}
		switch b.Type {
		case "heading":
			out = append(out, &Node{Type: "paragraph", Content: withMark(b.Content, Mark{Type: "strong"})})
		case "blockquote", "panel":
			out = append(out, coerce(b.Content, allowed)...)
		case "table":
			for _, row := range b.Content {
				p := &Node{Type: "paragraph"}
				for i, cell := range row.Content {
					if i > 0 {
						p.Content = append(p.Content, &Node{Type: "text", Text: " | "})
					}
					for _, cb := range cell.Content {
						p.Content = append(p.Content, cb.Content...)
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

func containsType(types []string, t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

func nonEmpty(blocks []*Node) []*Node {
	if len(blocks) == 0 {
		return []*Node{{Type: "paragraph"}}
	}
	return blocks
}

// withMark adds m to every text node of inline content (a heading made a
// paragraph), keeping the code mark's exclusivity.
func withMark(in []*Node, m Mark) []*Node {
	out := make([]*Node, 0, len(in))
	for _, n := range in {
		if n.Type == "text" {
			cp := *n
			cp.Marks = addMark(n.Marks, m)
			n = &cp
		}
		out = append(out, n)
	}
	return out
}

// addMark returns marks plus m, unless m's type is present already or the
// code mark forbids it (code combines only with link).
func addMark(marks []Mark, m Mark) []Mark {
	for _, x := range marks {
		if x.Type == m.Type || (x.Type == "code" && m.Type != "link") {
			return marks
		}
	}
	if m.Type == "code" {
		var kept []Mark
		for _, x := range marks {
			if x.Type == "link" {
				kept = append(kept, x)
			}
		}
		marks = kept
	}
	return append(append([]Mark(nil), marks...), m)
}

// inlines converts the inline children of n under marks.
func (c *converter) inlines(n ast.Node, marks []Mark) []*Node {
	var out []*Node
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		out = append(out, c.inline(ch, marks)...)
	}
	return mergeText(out)
}

func (c *converter) inline(n ast.Node, marks []Mark) []*Node {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(c.src)
		if !n.IsRaw() {
			v = unescape(v)
		}
		out := textNodes(string(v), marks)
		switch {
		case n.HardLineBreak():
			out = append(out, &Node{Type: "hardBreak"})
		case n.SoftLineBreak():
			out = append(out, textNodes(" ", marks)...)
		}
		return out
	case *ast.String:
		v := n.Value
		if !n.IsRaw() && !n.IsCode() {
			v = unescape(v)
		}
		return textNodes(string(v), marks)
	case *ast.CodeSpan:
		var b strings.Builder
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			switch t := ch.(type) {
			case *ast.Text:
				b.Write(t.Value(c.src))
				if t.SoftLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(t.Value)
			}
		}
		s := strings.ReplaceAll(b.String(), "\n", " ")
		return textNodes(s, addMark(marks, Mark{Type: "code"}))
	case *ast.Emphasis:
		m := Mark{Type: "em"}
		if n.Level >= 2 {
			m.Type = "strong"
		}
		return c.inlines(n, addMark(marks, m))
	case *extast.Strikethrough:
		return c.inlines(n, addMark(marks, Mark{Type: "strike"}))
	case *ast.Link:
		if len(n.Destination) == 0 {
			return c.inlines(n, marks)
		}
		return c.inlines(n, addMark(marks, linkMark(string(n.Destination), string(n.Title))))
	case *ast.AutoLink:
		url := string(n.URL(c.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		return textNodes(string(n.Label(c.src)), addMark(marks, linkMark(url, "")))
	case *ast.Image:
		label := c.inlines(n, nil)
		alt := ""
		for _, l := range label {
			alt += l.Text
		}
		if alt == "" {
			alt = string(n.Destination)
		}
		if len(n.Destination) == 0 {
			return textNodes(alt, marks)
		}
		return textNodes(alt, addMark(marks, linkMark(string(n.Destination), string(n.Title))))
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(c.src))
		}
		raw := b.String()
		switch {
		case strings.HasPrefix(raw, "<!--"):
			return nil
		case isBreakTag(raw):
			return []*Node{{Type: "hardBreak"}}
		}
		return textNodes(raw, marks)
	case *extast.TaskCheckBox:
		if n.IsChecked {
			return textNodes("[x] ", marks)
		}
		return textNodes("[ ] ", marks)
	}
	return c.inlines(n, marks)
}

func isBreakTag(s string) bool {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	return s == "<br>" || s == "<br/>"
}

func linkMark(href, title string) Mark {
	attrs := map[string]any{"href": href}
	if title != "" {
		attrs["title"] = title
	}
	return Mark{Type: "link", Attrs: attrs}
}

// unescape resolves backslash escapes and entity references the way
// goldmark's HTML renderer does for text.
func unescape(v []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
}

func textNodes(s string, marks []Mark) []*Node {
	if s == "" {
		return nil
	}
	return []*Node{{Type: "text", Text: s, Marks: marks}}
}

// mergeText joins adjacent text nodes with the same marks and drops a
// trailing hard break, so the output is as small as Jira's own.
func mergeText(in []*Node) []*Node {
	var out []*Node
	for _, n := range in {
		if len(out) > 0 {
			last := out[len(out)-1]
			if n.Type == "text" && last.Type == "text" && sameMarks(last.Marks, n.Marks) {
				cp := *last
				cp.Text += n.Text
				out[len(out)-1] = &cp
				continue
			}
		}
		out = append(out, n)
	}
	for len(out) > 0 && out[len(out)-1].Type == "hardBreak" {
		out = out[:len(out)-1]
	}
	// A soft break before the end of a paragraph leaves a trailing space.
	if len(out) > 0 && out[len(out)-1].Type == "text" {
		last := out[len(out)-1]
		if t := strings.TrimRight(last.Text, " "); t != last.Text && len(last.Marks) == 0 {
			if t == "" {
				out = out[:len(out)-1]
			} else {
				cp := *last
				cp.Text = t
				out[len(out)-1] = &cp
			}
		}
	}
	return out
}

func sameMarks(a, b []Mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type {
			return false
		}
		if a[i].Type == "link" && (a[i].Attrs["href"] != b[i].Attrs["href"] || a[i].Attrs["title"] != b[i].Attrs["title"]) {
			return false
		}
	}
	return true
}
