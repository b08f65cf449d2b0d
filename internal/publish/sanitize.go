package publish

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/relayhq/relay/internal/mdfence"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser parses markdown as GitHub does (CommonMark with the GFM
// extensions: tables, strikethrough, task lists, bare-URL autolinks).
var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// linkPolicy is bluemonday's judgement of a link's URL: http, https, mailto
// and relative URLs pass; javascript:, vbscript:, data:, file: and URLs that
// do not parse do not.
var linkPolicy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowStandardURLs()
	p.AllowAttrs("href").OnElements("a")
	return p
}()

// SafeURL reports whether a link to u may be posted. u is a destination
// as written in markdown: backslash escapes and character references are
// resolved first, as a renderer would.
func SafeURL(u string) bool {
	u = html.UnescapeString(string(util.UnescapePunctuations([]byte(u))))
	out := linkPolicy.Sanitize(`<a href="` + html.EscapeString(u) + `">x</a>`)
	return strings.Contains(out, "href=")
}

// zwj follows the "@" of a neutralised mention: shown as nothing, it keeps
// the tracker from reading a user or team name.
const zwj = "\u200d"

// Sanitize returns md with no raw HTML, no images, no unsafe links, no
// live mentions and no live cross-references outside code (see the
// package's DESIGN notes).
func Sanitize(md string) string { return SanitizeFor(md, "") }

// SanitizeFor is Sanitize for a report posted on an issue of the GitHub
// repository repo (owner/name): cross-references to repo are kept.
func SanitizeFor(md, repo string) string {
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	code := codeMask(doc, src)
	unsafeLinks := len(problems(doc, src, code, true, repo)) > 0
	marks := refMarks(src, code, repo)
	var b strings.Builder
	b.Grow(len(src) + len(src)/16)
	for i := 0; i < len(src); i++ {
		c := src[i]
		if len(marks) > 0 && marks[0] == i {
			b.WriteString(zwj)
			marks = marks[1:]
		}
		if code[i] {
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '<':
			b.WriteString("&lt;")
		case c == '[' && (unsafeLinks || i > 0 && src[i-1] == '!' && !code[i-1]):
			b.WriteString("&#91;")
		case c == '[' && i+1 < len(src) && src[i+1] == '~':
			b.WriteString("[" + zwj) // Jira's [~user] mention
		case c == '@' && liveAt(src, i):
			b.WriteString("@" + zwj)
		case c == '&' && refToAt(src, i):
			b.WriteString("&amp;") // shown as typed, not as an "@" or "#"
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if p := CheckFor(out, repo); len(p) > 0 {
		return mdfence.Fence(out, "text") // the last resort, shown as typed
	}
	return out
}

// Check returns what in md could not be posted safely: raw HTML, images,
// unsafe links, live mentions and live cross-references outside code. nil
// means none.
func Check(md string) []string { return CheckFor(md, "") }

// CheckFor is Check for a report posted on an issue of the GitHub
// repository repo (owner/name): cross-references to repo are allowed.
func CheckFor(md, repo string) []string {
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	return problems(doc, src, codeMask(doc, src), false, repo)
}

// problems walks doc; linksOnly limits it to unsafe links.
func problems(doc ast.Node, src []byte, code []bool, linksOnly bool, repo string) []string {
	var out []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !SafeURL(string(n.Destination)) {
				out = append(out, fmt.Sprintf("link to %q", n.Destination))
			}
		case *ast.AutoLink:
			if u := string(n.URL(src)); !SafeURL(u) && !strings.Contains(u, "@") {
				out = append(out, fmt.Sprintf("autolink to %q", u))
			}
		case *ast.Image:
			if !linksOnly {
				out = append(out, fmt.Sprintf("image %q", n.Destination))
			}
		case *ast.RawHTML, *ast.HTMLBlock:
			if !linksOnly {
				out = append(out, "raw HTML")
			}
		}
		return ast.WalkContinue, nil
	})
	if linksOnly {
		return out
	}
	for i := 0; i+1 < len(src); i++ {
		if !code[i] && (src[i] == '@' && liveAt(src, i) || src[i] == '&' && refToAt(src, i)) {
			out = append(out, "mention at byte "+fmt.Sprint(i))
		}
	}
	for _, i := range refMarks(src, code, repo) {
		out = append(out, "cross-reference at byte "+fmt.Sprint(i))
	}
	return out
}

// liveAt reports whether the "@" at src[i] can start a mention: no letter
// or digit before it, and after it a letter, a digit or a character
// reference ("@&#115;omeone" renders as "@someone", and the tracker finds
// mentions in the rendered text).
func liveAt(src []byte, i int) bool {
	return i+1 < len(src) && (isAlnum(src[i+1]) || src[i+1] == '&') && (i == 0 || !isAlnum(src[i-1]))
}

// charRef is a character reference in CommonMark's three forms: named,
// decimal and hexadecimal.
var charRef = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// refToAt reports whether a character reference that renders as "@" or
// "#" ("&#64;", "&#x40;", "&commat;", "&#35;", "&num;") starts at src[i]:
// the tracker finds mentions and cross-references in the rendered text.
func refToAt(src []byte, i int) bool {
	m := charRef.Find(src[i:])
	if m == nil {
		return false
	}
	u := html.UnescapeString(string(m))
	return u == "@" || u == "#"
}

// codeMask marks the bytes of src that are inside code spans and code
// blocks, where markdown shows every character as typed.
func codeMask(doc ast.Node, src []byte) []bool {
	mask := make([]bool, len(src))
	mark := func(s text.Segment) {
		for i := s.Start; i < s.Stop && i < len(src); i++ {
			mask[i] = true
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				mark(lines.At(i))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					mark(t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return mask
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
