//go:build cgo

package java

import (
	"context"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// A type annotation before the ellipsis of a variable-arity parameter
// (String @Nullable ... args, JLS 8.4.1; JSpecify's nullness style, all
// over Spring Framework) is a syntax error in the grammar relay uses
// (tree-sitter-java v0.23.5, the newest the module proxy serves: its
// spread_parameter takes annotations after the ellipsis, not before). The
// parameter is lost with it, and getBean(String, Object...) read as a
// second getBean(String). The annotation says nothing the index records,
// so a file that does not parse is parsed again with such annotations
// blanked (blankVarargsAnnotations): spaces of the same length keep every
// byte offset, line and column, and the second tree is read against the
// file's real bytes (a parameter's type is the node before the blank, so
// it reads as it did).

// parse parses one file's data; a file that does not parse is parsed
// again with the annotations before a varargs ellipsis blanked, and that
// tree is kept unless it has more syntax errors. The text to read either
// tree against is data.
func parse(ctx context.Context, p *sitter.Parser, data []byte, timeout time.Duration) (*sitter.Tree, error) {
	t, err := sitter.ParseLimited(ctx, p, data, timeout)
	if err != nil || !t.RootNode().HasError() {
		return t, err
	}
	fixed, ok := blankVarargsAnnotations(data)
	if !ok {
		return t, nil
	}
	t2, err := sitter.ParseLimited(ctx, p, fixed, timeout)
	if err != nil {
		t.Close()
		return nil, err
	}
	if t2.RootNode().HasError() && len(sitter.SyntaxErrors(t2.RootNode())) > len(sitter.SyntaxErrors(t.RootNode())) {
		t2.Close()
		return t, nil
	}
	t.Close()
	return t2, nil
}

// blankVarargsAnnotations returns a copy of src with every run of
// annotations that an ellipsis follows (comments and white space between)
// replaced by spaces, line breaks kept, and whether it found any. An
// annotation is an @, a possibly qualified name other than interface, and
// an optional parenthesised argument list (balanced, its strings,
// characters and comments skipped); comments, strings, text blocks and
// character literals elsewhere are skipped, so a rewrite never touches
// their text. Nothing but a variable-arity parameter has an annotation
// before "..." in a valid program.
func blankVarargsAnnotations(src []byte) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(src); {
		if j := skipLiteral(src, i); j > i {
			i = j
			continue
		}
		if src[i] != '@' {
			i++
			continue
		}
		end := annotationEnd(src, i)
		if end < 0 {
			i++
			continue
		}
		for {
			k := skipBlank(src, end)
			if k >= len(src) || src[k] != '@' {
				break
			}
			e := annotationEnd(src, k)
			if e < 0 {
				break
			}
			end = e
		}
		if k := skipBlank(src, end); !hasPrefixAt(src, k, "...") {
			i = end
			continue
		}
		if out == nil {
			out = append([]byte(nil), src...)
		}
		for k := i; k < end; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
		i = end
	}
	if out == nil {
		return src, false
	}
	return out, true
}

// annotationEnd returns where the annotation starting with the @ at i
// ends, or -1 when none starts there.
func annotationEnd(src []byte, i int) int {
	j := skipBlank(src, i+1)
	n := identEnd(src, j)
	if n == j || string(src[j:n]) == "interface" {
		return -1
	}
	for {
		k := skipBlank(src, n)
		if k >= len(src) || src[k] != '.' || hasPrefixAt(src, k, "...") {
			break
		}
		k = skipBlank(src, k+1)
		e := identEnd(src, k)
		if e == k {
			return -1
		}
		n = e
	}
	if k := skipBlank(src, n); k < len(src) && src[k] == '(' {
		return parenEnd(src, k)
	}
	return n
}

// parenEnd returns the position after the parenthesis closing the one at
// i, or -1 when it is not closed.
func parenEnd(src []byte, i int) int {
	depth := 0
	for i < len(src) {
		if j := skipLiteral(src, i); j > i {
			i = j
			continue
		}
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// skipLiteral returns the position after the comment, string, text block
// or character literal starting at i, or i when none starts there. One
// left open ends at the end of src (a string or character at its line's
// end).
func skipLiteral(src []byte, i int) int {
	switch {
	case hasPrefixAt(src, i, "//"):
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i
	case hasPrefixAt(src, i, "/*"):
		for i += 2; i < len(src) && !hasPrefixAt(src, i, "*/"); i++ {
		}
		return min(i+2, len(src))
	case hasPrefixAt(src, i, `"""`):
		for i += 3; i < len(src) && !hasPrefixAt(src, i, `"""`); i++ {
			if src[i] == '\\' {
				i++
			}
		}
		return min(i+3, len(src))
	case i < len(src) && (src[i] == '"' || src[i] == '\''):
		q := src[i]
		for i++; i < len(src) && src[i] != q && src[i] != '\n'; i++ {
			if src[i] == '\\' {
				i++
			}
		}
		return min(i+1, len(src))
	}
	return i
}

// skipBlank returns the position after the white space and comments
// starting at i.
func skipBlank(src []byte, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case hasPrefixAt(src, i, "//") || hasPrefixAt(src, i, "/*"):
			i = skipLiteral(src, i)
		default:
			return i
		}
	}
	return i
}

// identEnd returns the end of the identifier starting at i (i when none
// does); any byte of a multi-byte character counts as part of one.
func identEnd(src []byte, i int) int {
	if i < len(src) && src[i] >= '0' && src[i] <= '9' {
		return i
	}
	for i < len(src) {
		c := src[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			break
		}
		i++
	}
	return i
}

// hasPrefixAt reports whether src[i:] starts with s.
func hasPrefixAt(src []byte, i int, s string) bool {
	return i >= 0 && i+len(s) <= len(src) && string(src[i:i+len(s)]) == s
}
