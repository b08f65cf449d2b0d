package adf

import (
	"strings"
	"unicode"
)

// Wiki renders an ADF document as Jira wiki markup, the text format of Jira
// Data Center's REST v2 comments: h1.–h6. headings, * and # lists (nested
// by repeating the marker), {code:lang} blocks, {quote}, ----, ||header||
// tables, *strong*, _em_, -strike-, {{code}} and [text|url] links. Text is
// escaped so a report's own asterisks, brackets and braces stay literal.
func Wiki(doc *Node) string {
	if doc == nil {
		return ""
	}
	return strings.Join(wikiBlocks(doc.Content, ""), "\n\n")
}

// wikiLangs are the languages Jira's {code} macro knows; another language
// name makes Jira show an error instead of the code, so it is left out.
var wikiLangs = map[string]bool{
	"actionscript": true, "ada": true, "applescript": true, "bash": true, "c": true, "c#": true, "c++": true,
	"cpp": true, "css": true, "erlang": true, "go": true, "groovy": true, "haskell": true, "html": true,
	"java": true, "javascript": true, "js": true, "json": true, "lua": true, "none": true, "nyan": true,
	"objc": true, "perl": true, "php": true, "python": true, "r": true, "rainbow": true, "ruby": true,
	"scala": true, "sh": true, "sql": true, "swift": true, "visualbasic": true, "xml": true, "yaml": true,
}

func wikiBlocks(nodes []*Node, listPrefix string) []string {
	var out []string
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if s := wikiBlock(n, listPrefix); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func wikiBlock(n *Node, listPrefix string) string {
	switch n.Type {
	case "paragraph":
		return wikiInlines(n.Content)
	case "heading":
		return "h" + string(rune('0'+clamp(intAttr(n, "level", 1), 1, 6))) + ". " + wikiInlines(n.Content)
	case "bulletList", "orderedList":
		return wikiList(n, listPrefix)
	case "codeBlock":
		open := "{code}"
		if lang := strings.ToLower(strAttr(n, "language")); wikiLangs[lang] {
			open = "{code:" + lang + "}"
		}
		// {code} ends at the first "{code}", so one inside the code is broken up.
		body := strings.ReplaceAll(strings.TrimSuffix(n.PlainText(), "\n"), "{code}", "{ code}")
		return open + "\n" + body + "\n{code}"
	case "blockquote", "panel":
		return "{quote}\n" + strings.Join(wikiBlocks(n.Content, ""), "\n\n") + "\n{quote}"
	case "rule":
		return "----"
	case "table":
		return wikiTable(n)
	}
	if len(n.Content) > 0 {
		if isInline(n.Content[0]) {
			return wikiInlines(n.Content)
		}
		return strings.Join(wikiBlocks(n.Content, listPrefix), "\n\n")
	}
	return ""
}

// wikiList renders a list; a nested list repeats the parent's markers
// ("*#" is a numbered list inside a bulleted one). Wiki list items are one
// line, so an item's later paragraphs join its first with a line break.
func wikiList(n *Node, prefix string) string {
	marker := "*"
	if n.Type == "orderedList" {
		marker = "#"
	}
	prefix += marker
	var lines []string
	for _, it := range n.Content {
		if it == nil {
			continue
		}
		var text []string
		var nested []string
		for _, c := range it.Content {
			if c == nil {
				continue
			}
			if c.Type == "bulletList" || c.Type == "orderedList" {
				nested = append(nested, wikiList(c, prefix))
				continue
			}
			if s := wikiBlock(c, prefix); s != "" {
				text = append(text, s)
			}
		}
		lines = append(lines, prefix+" "+strings.Join(text, " \\\\ "))
		lines = append(lines, nested...)
	}
	return strings.Join(lines, "\n")
}

func wikiTable(n *Node) string {
	var rows []string
	for _, r := range n.Content {
		if r == nil {
			continue
		}
		var b strings.Builder
		for i, c := range r.Content {
			if c == nil {
				continue
			}
			sep := "|"
			if c.Type == "tableHeader" {
				sep = "||"
			}
			cell := strings.ReplaceAll(strings.Join(wikiBlocks(c.Content, ""), " "), "\n", " ")
			if cell == "" {
				cell = " "
			}
			b.WriteString(sep + cell)
			if i == len(r.Content)-1 {
				b.WriteString(sep)
			}
		}
		rows = append(rows, b.String())
	}
	return strings.Join(rows, "\n")
}

func wikiInlines(nodes []*Node) string {
	var b strings.Builder
	for _, n := range nodes {
		if n == nil {
			continue
		}
		switch n.Type {
		case "text":
			b.WriteString(wikiText(n.Text, n.Marks))
		case "hardBreak":
			b.WriteString("\n")
		default:
			b.WriteString(wikiEscape(renderInlines([]*Node{n})))
		}
	}
	return b.String()
}

func wikiText(s string, marks []Mark) string {
	has := map[string]Mark{}
	for _, m := range marks {
		has[m.Type] = m
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " \t"))]
	core := strings.TrimSpace(s)
	trail := s[len(lead)+len(core):]
	if core == "" {
		return s
	}
	core = wikiEscape(core)
	if _, ok := has["code"]; ok {
		core = "{{" + core + "}}"
	}
	for _, w := range []struct{ mark, delim string }{{"em", "_"}, {"strong", "*"}, {"strike", "-"}} {
		if _, ok := has[w.mark]; ok {
			core = w.delim + core + w.delim
		}
	}
	if l, ok := has["link"]; ok {
		if href, _ := l.Attrs["href"].(string); href != "" {
			core = "[" + core + "|" + strings.NewReplacer("|", "%7C", "]", "%5D").Replace(href) + "]"
		}
	}
	return lead + core + trail
}

// wikiEscape backslash-escapes what would start wiki markup: braces,
// brackets and pipes always; the emphasis characters only at a word edge
// (where Jira reads them as markup, so "snake_case" and "4-5" stay as they
// are); "??" (citation), "!x" (image) and "#" at a line start (list).
func wikiEscape(s string) string {
	rs := []rune(s)
	isWord := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	var b strings.Builder
	for i, r := range rs {
		esc := false
		switch r {
		case '{', '}', '[', ']', '|':
			esc = true
		case '*', '_', '-', '+', '^', '~':
			esc = !isWord(i-1) || !isWord(i+1)
		case '?':
			esc = (i > 0 && rs[i-1] == '?') || (i+1 < len(rs) && rs[i+1] == '?')
		case '!':
			esc = i+1 < len(rs) && !unicode.IsSpace(rs[i+1])
		case '#':
			esc = i == 0 || rs[i-1] == '\n'
		}
		if esc {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
