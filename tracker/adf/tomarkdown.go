package adf

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relayhq/relay/internal/mdfence"
)

// ToMarkdown renders an ADF document (or any ADF node) as plain markdown
// for reading: what the scoping pipeline sees of a Jira Cloud description or
// comment. It is tolerant of nodes relay never writes; see the package doc.
// Text is not markdown-escaped: the reader is a person or a model, not a
// markdown parser that must reproduce the document.
func ToMarkdown(doc *Node) string {
	if doc == nil {
		return ""
	}
	var blocks []string
	if doc.Type == "doc" {
		blocks = renderBlocks(doc.Content)
	} else {
		blocks = renderBlock(doc)
	}
	return strings.Join(blocks, "\n\n")
}

// renderBlocks renders block nodes, one string per block.
func renderBlocks(nodes []*Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, renderBlock(n)...)
	}
	return out
}

func renderBlock(n *Node) []string {
	if n == nil {
		return nil
	}
	switch n.Type {
	case "paragraph":
		if s := renderInlines(n.Content); strings.TrimSpace(s) != "" {
			return []string{s}
		}
		return nil
	case "heading":
		return []string{strings.Repeat("#", clamp(intAttr(n, "level", 1), 1, 6)) + " " + renderInlines(n.Content)}
	case "bulletList", "orderedList", "taskList", "decisionList":
		return []string{renderList(n)}
	case "codeBlock":
		return []string{mdfence.Fence(strings.TrimSuffix(n.PlainText(), "\n"), strAttr(n, "language"))}
	case "blockquote", "panel":
		return []string{quote(strings.Join(renderBlocks(n.Content), "\n\n"))}
	case "rule":
		return []string{"---"}
	case "table":
		return []string{renderTable(n)}
	case "expand", "nestedExpand":
		var out []string
		if t := strAttr(n, "title"); t != "" {
			out = append(out, "**"+t+"**")
		}
		return append(out, renderBlocks(n.Content)...)
	case "mediaSingle", "mediaGroup":
		return []string{renderMedia(n)}
	case "blockCard", "embedCard":
		if u := strAttr(n, "url"); u != "" {
			return []string{"<" + u + ">"}
		}
		return nil
	case "text", "hardBreak", "mention", "emoji", "inlineCard", "date", "status", "mediaInline", "media":
		// Inline content where a block was expected: render it as a paragraph.
		return []string{renderInlines([]*Node{n})}
	}
	// Unknown block (an extension, a future node): its children or its text.
	if len(n.Content) > 0 {
		if isInline(n.Content[0]) {
			return []string{renderInlines(n.Content)}
		}
		return renderBlocks(n.Content)
	}
	if t := strAttr(n, "text"); t != "" {
		return []string{t}
	}
	return nil
}

func isInline(n *Node) bool {
	return n != nil && containsType([]string{"text", "hardBreak", "mention", "emoji", "inlineCard", "date", "status", "mediaInline"}, n.Type)
}

// renderList renders a list; items' continuation lines are indented to the
// marker's width, which nests inner lists.
func renderList(n *Node) string {
	start := intAttr(n, "order", 1)
	var items []string
	for i, it := range n.Content {
		if it == nil {
			continue
		}
		marker := "- "
		switch n.Type {
		case "orderedList":
			marker = strconv.Itoa(start+i) + ". "
		case "taskList":
			marker = "- [ ] "
			if strAttr(it, "state") == "DONE" {
				marker = "- [x] "
			}
		}
		var body string
		if isInline(firstChild(it)) {
			body = renderInlines(it.Content)
		} else {
			body = strings.Join(renderBlocks(it.Content), "\n")
		}
		items = append(items, marker+indent(body, strings.Repeat(" ", len(marker))))
	}
	return strings.Join(items, "\n")
}

func firstChild(n *Node) *Node {
	if len(n.Content) == 0 {
		return nil
	}
	return n.Content[0]
}

// indent prefixes every line but the first.
func indent(s, pad string) string {
	return strings.ReplaceAll(s, "\n", "\n"+pad)
}

func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

func renderTable(n *Node) string {
	var rows [][]string
	width := 0
	for _, r := range n.Content {
		if r == nil {
			continue
		}
		var cells []string
		for _, c := range r.Content {
			if c == nil {
				continue
			}
			s := strings.Join(renderBlocks(c.Content), " ")
			s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
			cells = append(cells, s)
		}
		rows = append(rows, cells)
		width = max(width, len(cells))
	}
	if width == 0 {
		return ""
	}
	var b strings.Builder
	for i, cells := range rows {
		for len(cells) < width {
			cells = append(cells, "")
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func renderMedia(n *Node) string {
	var names []string
	var walk func(*Node)
	walk = func(n *Node) {
		if n.Type == "media" || n.Type == "mediaInline" {
			name := strAttr(n, "alt")
			if name == "" {
				name = strAttr(n, "id")
			}
			names = append(names, "[attachment: "+name+"]")
		}
		for _, c := range n.Content {
			if c != nil {
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(names, " ")
}

// renderInlines renders inline nodes as one markdown string.
func renderInlines(nodes []*Node) string {
	var b strings.Builder
	for _, n := range nodes {
		if n == nil {
			continue
		}
		switch n.Type {
		case "text":
			b.WriteString(markText(n.Text, n.Marks))
		case "hardBreak":
			b.WriteString("\n")
		case "mention":
			t := strAttr(n, "text")
			if t == "" {
				t = "@" + strAttr(n, "id")
			}
			b.WriteString(t)
		case "emoji":
			t := strAttr(n, "text")
			if t == "" {
				t = strAttr(n, "shortName")
			}
			b.WriteString(t)
		case "inlineCard":
			if u := strAttr(n, "url"); u != "" {
				b.WriteString("<" + u + ">")
			}
		case "date":
			b.WriteString(renderDate(strAttr(n, "timestamp")))
		case "status":
			b.WriteString("[" + strAttr(n, "text") + "]")
		case "mediaInline", "media":
			b.WriteString(renderMedia(n))
		default:
			if len(n.Content) > 0 {
				b.WriteString(renderInlines(n.Content))
			} else {
				b.WriteString(strAttr(n, "text"))
			}
		}
	}
	return b.String()
}

// markText wraps text in the markdown of its marks: code innermost, link
// outermost. Whitespace at the edges stays outside emphasis, where markdown
// would not recognise it.
func markText(s string, marks []Mark) string {
	var has = map[string]Mark{}
	for _, m := range marks {
		has[m.Type] = m
	}
	if _, ok := has["code"]; ok {
		s = codeSpan(s)
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " \t"))]
	core := strings.TrimSpace(s)
	trail := s[len(lead)+len(core):]
	if core != "" {
		for _, w := range []struct{ mark, delim string }{{"em", "*"}, {"strong", "**"}, {"strike", "~~"}} {
			if _, ok := has[w.mark]; ok {
				core = w.delim + core + w.delim
			}
		}
	}
	if l, ok := has["link"]; ok {
		if href, _ := l.Attrs["href"].(string); href != "" {
			core = "[" + core + "](" + href + ")"
		}
	}
	return lead + core + trail
}

func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

func renderDate(ts string) string {
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ts
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02")
}

func strAttr(n *Node, key string) string {
	switch v := n.Attrs[key].(type) {
	case string:
		return v
	case float64, int:
		return fmt.Sprint(v)
	}
	return ""
}

func intAttr(n *Node, key string, def int) int {
	switch v := n.Attrs[key].(type) {
	case float64:
		if v >= -1e9 && v <= 1e9 {
			return int(v)
		}
	case int:
		return v
	case string:
		if i, err := strconv.Atoi(v); err == nil {
			return i
		}
	}
	return def
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }
