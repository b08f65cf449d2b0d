package publish

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/relayhq/relay/internal/egress"
)

// pathToken finds the path-like words of a text: repository paths and
// path:line citations (".env:3", "deploy/id_rsa", "config/credentials.yml#L2").
// Matching a word against the secret-file policy is left to the policy.
var pathToken = regexp.MustCompile(`[\w.~/\-]+(?::\d+(?:-\d+)?|#L\d+)?`)

// secretPath returns the first path-like word of s that the policy refuses,
// and whether it is cited with a line (path:line). Bare words ("credentials")
// count only when cited: a path names a directory or an extension.
func secretPath(s string, p *egress.FilePolicy) (path string, cited bool) {
	for _, tok := range pathToken.FindAllString(s, -1) {
		name, line := tok, false
		if i := strings.Index(name, "#L"); i > 0 {
			name, line = name[:i], true
		} else if i := strings.LastIndexByte(name, ':'); i > 0 {
			name, line = name[:i], true
		}
		name = strings.TrimRight(name, ".-/")
		name = strings.TrimPrefix(name, "./")
		if name == "" || !line && !strings.ContainsAny(name, "./_") {
			continue
		}
		if _, secret := p.Match(name); secret {
			return name, line
		}
	}
	return "", false
}

// quoteCut returns the offset at which md first quotes a secret-bearing
// file, and the file, or -1: a line citing one with a line number, or a
// code block whose info string or introducing line names one.
func quoteCut(md string, p *egress.FilePolicy) (int, string) {
	cut, file := -1, ""
	at := func(off int, f string) {
		if cut < 0 || off < cut {
			cut, file = off, f
		}
	}
	off := 0
	for _, line := range strings.SplitAfter(md, "\n") {
		if f, cited := secretPath(line, p); cited {
			at(off, f)
			break
		}
		off += len(line)
	}
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var info string
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if n.Info != nil {
				info = string(n.Info.Segment.Value(src))
			}
		case *ast.CodeBlock:
		default:
			return ast.WalkContinue, nil
		}
		if n.Lines().Len() == 0 {
			return ast.WalkSkipChildren, nil
		}
		start := lineStart(md, n.Lines().At(0).Start)
		if _, fenced := n.(*ast.FencedCodeBlock); fenced && start > 0 {
			start = lineStart(md, start-1) // the opening fence
		}
		if f, _ := secretPath(info, p); f != "" {
			at(start, f)
		}
		if prev := n.PreviousSibling(); prev != nil && prev.Lines().Len() > 0 {
			last := prev.Lines().At(prev.Lines().Len() - 1)
			if f, _ := secretPath(string(last.Value(src)), p); f != "" {
				at(lineStart(md, last.Start), f)
			}
		}
		return ast.WalkSkipChildren, nil
	})
	return cut, file
}

// lineStart is the offset of the start of the line holding off.
func lineStart(s string, off int) int {
	return strings.LastIndexByte(s[:off], '\n') + 1
}
