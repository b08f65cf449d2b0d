//go:build cgo

package java

import (
	"fmt"

	"github.com/relayhq/relay/index/internal/sitter"
)

// Nesting budgets of the Java frontend. Real code stays far below them,
// where extraction is exact; a file beyond them (generated or hostile)
// keeps what lies above the limit and gets a diagnostic naming the line.
//
// DESIGN: Go cannot recover from a stack overflow, and the walks over a
// Java file recurse once per level of its syntax: type declarations
// (typeDecl → members → typeDecl) and code (walk, typeOf and their
// helpers, anonymous and local classes included). Bounding the depth of
// those recursions bounds the stack they take whatever the input. The
// type bound also makes qualified names linear in the file's size: a
// nested type's name carries its enclosing types' (com.a.Outer.Inner),
// which its node id, QName, Loc and the stored scope repeat, so 10,000
// nested classes would make 10,000 names averaging 5,000 levels each
// (gigabytes). With at most maxTypeNesting levels, a file's names
// take at most maxTypeNesting times its size.
const (
	// maxTypeNesting is the deepest member type indexed: a class
	// nested in maxTypeNesting enclosing types is skipped with what
	// it contains.
	maxTypeNesting = 64
	// maxCodeDepth bounds the recursion of the walk over a body's
	// statements and expressions (about two levels per nested call or
	// operator: f(f(…)) is resolved exactly to some 2,500 levels).
	// Deeper code is not walked: its calls are not resolved.
	maxCodeDepth = 5000
)

// tooDeep records that n lies below a nesting limit, once per extraction
// of a file (the first place met is the one to look at).
func (x *extractor) tooDeep(n *sitter.Node, what string) {
	if x.deep {
		return
	}
	x.deep = true
	p := n.StartPosition()
	x.f.res.Rec.Errors = append(x.f.res.Rec.Errors, fmt.Sprintf("%d:%d: %s", p.Row+1, p.Column+1, what))
}

// typeTooDeep is the diagnostic of a type nested too deep.
var typeTooDeep = fmt.Sprintf("type nested deeper than %d levels: it and the types, members and code inside it are not indexed", maxTypeNesting)

// codeTooDeep is the diagnostic of code nested too deep.
var codeTooDeep = fmt.Sprintf("code nested deeper than %d levels: the calls inside it are not resolved", maxCodeDepth)

// enter counts one more level of the walk over code; false (after a
// diagnostic) when n lies below maxCodeDepth, which the caller must
// then not walk. Every enter that returns true is paired with leave.
func (w *walker) enter(n *sitter.Node) bool {
	if w.depth >= maxCodeDepth {
		w.x.tooDeep(n, codeTooDeep)
		return false
	}
	w.depth++
	return true
}

func (w *walker) leave() { w.depth-- }
