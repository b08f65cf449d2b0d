//go:build cgo

package c

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// declaration reads a declaration: at file scope (locals nil) its
// variables' types and its initializers; in a function body the same for
// its locals. Prototypes declare no node: calls resolve to definitions.
func (x *extractor) declaration(n *sitter.Node, locals map[string]string) {
	ty := x.typeName(n.ChildByFieldName("type"))
	for _, d := range sitter.FieldChildren(n, "declarator") {
		if funcDeclarator(d) != nil {
			continue
		}
		id := declName(d)
		if id == nil {
			continue
		}
		if locals != nil {
			locals[x.text(id)] = ty
		} else {
			x.globals[x.text(id)] = ty
		}
		if d.Kind() == "init_declarator" && ty != "" {
			if v := d.ChildByFieldName("value"); v != nil && v.Kind() == "initializer_list" {
				x.inits(ty, v)
			}
		}
	}
}

// inits records the functions assigned to fields in an initializer list
// of type ty, by designator (.read = f) or by position ({f, "name"}: Pos,
// the field found at resolution), in nested lists too (an array of
// structs).
func (x *extractor) inits(ty string, list *sitter.Node) {
	pos := 0
	for _, c := range sitter.Children(list) {
		switch c.Kind() {
		case "comment":
			continue
		case "initializer_list":
			x.inits(ty, c)
		case "initializer_pair":
			v := c.ChildByFieldName("value")
			ds := sitter.FieldChildren(c, "designator")
			if v == nil || len(ds) != 1 || ds[0].Kind() != "field_designator" {
				break
			}
			fd := sitter.Children(ds[0])
			if len(fd) != 1 {
				break
			}
			if v = unwrapValue(v); v != nil && v.Kind() == "identifier" {
				x.f.Inits = append(x.f.Inits, assign{Type: ty, Field: x.text(fd[0]), Func: x.text(v), Line: sitter.Line(v)})
			}
		default:
			if v := unwrapValue(c); v != nil && v.Kind() == "identifier" {
				x.f.Inits = append(x.f.Inits, assign{Type: ty, Pos: pos + 1, Func: x.text(v), Line: sitter.Line(v)})
			}
		}
		pos++
	}
}

// function reads a function definition: its signature, types and calls.
func (x *extractor) function(n *sitter.Node) {
	fd := funcDeclarator(n.ChildByFieldName("declarator"))
	if fd == nil {
		return
	}
	id := declName(fd.ChildByFieldName("declarator"))
	if id == nil {
		return
	}
	f := fn{Name: x.text(id), Static: x.isStatic(n), Line: sitter.Line(n), End: sitter.EndLine(n), Guard: x.guards[sitter.Line(n)]}
	f.Ret = x.typeName(n.ChildByFieldName("type"))
	if body := n.ChildByFieldName("body"); body != nil {
		f.Sig = strings.Join(strings.Fields(string(x.src[n.StartByte():body.StartByte()])), " ")
	} else {
		f.Sig = strings.Join(strings.Fields(x.text(n)), " ")
	}
	locals := map[string]string{}
	if ps := fd.ChildByFieldName("parameters"); ps != nil {
		for _, p := range sitter.Children(ps) {
			if p.Kind() != "parameter_declaration" {
				continue
			}
			t := x.typeName(p.ChildByFieldName("type"))
			if t != "" {
				f.Params = append(f.Params, t)
			}
			if pid := declName(p.ChildByFieldName("declarator")); pid != nil {
				locals[x.text(pid)] = t
			}
		}
	}
	w := &bodyWalker{x: x, f: &f, locals: locals}
	if body := n.ChildByFieldName("body"); body != nil {
		w.walk(body)
	}
	x.f.Funcs = append(x.f.Funcs, f)
}

// bodyWalker collects a function body's calls. Locals are the body's
// names in one map (C's block scopes are not told apart): a call of a
// local or a parameter is a call through a pointer, not of the function
// of that name.
type bodyWalker struct {
	x      *extractor
	f      *fn
	locals map[string]string
}

func (w *bodyWalker) walk(n *sitter.Node) {
	switch n.Kind() {
	case "declaration":
		w.x.declaration(n, w.locals)
	case "call_expression":
		w.call(n)
	}
	for _, c := range sitter.Children(n) {
		w.walk(c)
	}
}

func (w *bodyWalker) call(n *sitter.Node) {
	fnode := n.ChildByFieldName("function")
	for fnode != nil && (fnode.Kind() == "parenthesized_expression" || fnode.Kind() == "pointer_expression") {
		if fnode.Kind() == "pointer_expression" {
			fnode = fnode.ChildByFieldName("argument")
			continue
		}
		cs := sitter.Children(fnode)
		if len(cs) != 1 {
			return
		}
		fnode = cs[0]
	}
	if fnode == nil {
		return
	}
	line := sitter.Line(n)
	switch fnode.Kind() {
	case "identifier":
		name := w.x.text(fnode)
		if _, local := w.locals[name]; local {
			return
		}
		w.f.Calls = append(w.f.Calls, callSite{Name: name, Line: line, Guard: w.x.guards[line]})
	case "field_expression":
		fld := fnode.ChildByFieldName("field")
		if fld == nil {
			return
		}
		w.f.Calls = append(w.f.Calls, callSite{Field: w.x.text(fld), Recv: w.recvType(fnode.ChildByFieldName("argument")), Line: line, Guard: w.x.guards[line]})
	}
}

// recvType returns the type name of a field expression's receiver when
// it is a local, a parameter or a file-scope variable.
func (w *bodyWalker) recvType(n *sitter.Node) string {
	for n != nil {
		switch n.Kind() {
		case "identifier":
			name := w.x.text(n)
			if t, ok := w.locals[name]; ok {
				return t
			}
			return w.x.globals[name]
		case "parenthesized_expression":
			cs := sitter.Children(n)
			if len(cs) != 1 {
				return ""
			}
			n = cs[0]
		case "pointer_expression", "subscript_expression":
			n = n.ChildByFieldName("argument")
		default:
			return ""
		}
	}
	return ""
}

// unwrapValue returns the function name under &f, (f) and casts.
func unwrapValue(v *sitter.Node) *sitter.Node {
	for v != nil {
		switch v.Kind() {
		case "pointer_expression":
			v = v.ChildByFieldName("argument")
		case "cast_expression":
			v = v.ChildByFieldName("value")
		case "parenthesized_expression":
			cs := sitter.Children(v)
			if len(cs) != 1 {
				return nil
			}
			v = cs[0]
		default:
			return v
		}
	}
	return nil
}
