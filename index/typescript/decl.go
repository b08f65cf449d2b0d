//go:build cgo

package typescript

import (
	"fmt"
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// top handles one top-level statement: declarations become nodes and
// scope entries, imports and exports scope entries, and other code's
// references belong to the module node.
func (x *extractor) top(st *sitter.Node, mid, fid graphdb.NodeID) {
	s := x.f.scope
	switch st.Kind() {
	case "import_statement":
		x.importStmt(st)
	case "export_statement":
		x.exportStmt(st, mid, fid)
	case "expression_statement":
		if st.NamedChildCount() == 1 && st.NamedChild(0).Kind() == "assignment_expression" &&
			(x.cjsExport(st.NamedChild(0), st, mid, fid) || x.assignedMember(st.NamedChild(0), st, mid, fid)) {
			return
		}
		if st.NamedChildCount() == 1 && st.NamedChild(0).Kind() == "call_expression" && x.definedProperty(st.NamedChild(0), st, mid, fid) {
			return
		}
		if st.NamedChildCount() == 1 && (st.NamedChild(0).Kind() == "internal_module" || st.NamedChild(0).Kind() == "module") {
			if x.namespace(st.NamedChild(0), st, fid) != "" {
				return
			}
		}
		x.refs(st, mid, "", nil)
	case "ambient_declaration":
		for _, c := range sitter.Children(st) {
			x.top(c, mid, fid)
		}
	case "lexical_declaration", "variable_declaration":
		x.varDecl(st, st, mid, fid, false)
	case "function_signature":
		// An overload: the implementation that follows is the node; a
		// declaration alone (declare, .d.ts) still gives the type.
		name := x.text(st.ChildByFieldName("name"))
		if d := s.Decls[name]; d == nil && name != "" {
			s.Decls[name] = &scopeDecl{Kind: "function", Type: x.typeName(st.ChildByFieldName("return_type")), Params: x.fnParams(st)}
		}
	default:
		if name := x.decl(st, st, nil, fid); name == "" {
			x.refs(st, mid, "", nil)
		}
	}
}

// decl adds a declaration (class, interface, enum, type alias, function)
// and returns its local name, or "" when st is none. outer is the
// statement holding it (export, decorators) for lines and doc.
func (x *extractor) decl(st, outer *sitter.Node, decs []*sitter.Node, fid graphdb.NodeID) string {
	nameNode := st.ChildByFieldName("name")
	name := x.text(nameNode)
	switch st.Kind() {
	case "class_declaration", "abstract_class_declaration", "class":
		if name == "" {
			return ""
		}
		x.class(st, outer, name, decs, fid)
	case "interface_declaration":
		x.iface(st, outer, name, fid)
	case "enum_declaration", "type_alias_declaration":
		sub := map[string]string{"enum_declaration": "enum", "type_alias_declaration": "alias"}[st.Kind()]
		id := x.add(x.node(outer, st, name, name, graphdb.KindType, sub))
		x.parent(id, fid)
		x.define(name, &scopeDecl{ID: id, Kind: sub})
	case "function_declaration", "generator_function_declaration", "function_expression", "function", "generator_function", "arrow_function":
		if name == "" {
			return ""
		}
		x.function(st, outer, name, fid)
	case "internal_module", "module":
		return x.namespace(st, outer, fid)
	default:
		return ""
	}
	return name
}

// define binds a top-level name; the first declaration keeps it, except
// that an implementation replaces the bare overload signatures before it.
func (x *extractor) define(name string, d *scopeDecl) {
	if old := x.f.scope.Decls[name]; old != nil && old.ID != "" {
		return
	} else if old != nil && d.Type == "" {
		d.Type = old.Type
	}
	x.f.scope.Decls[name] = d
}

// node builds a declaration node: loc is the part after "file:".
func (x *extractor) node(outer, def *sitter.Node, name, loc string, kind graphdb.NodeKind, sub string) graphdb.Node {
	q := x.f.module + "." + x.prefix + loc
	return graphdb.Node{ID: nodeID(q), Kind: kind, SubKind: sub, Name: name, QName: q, Loc: x.f.rel + ":" + x.prefix + loc,
		StartLine: sitter.Line(outer), EndLine: sitter.EndLine(outer), Signature: x.signature(def), Doc: x.doc(outer),
		Exported: outer.Kind() == "export_statement" || x.parentOf(outer) != nil && x.parentOf(outer).Kind() == "export_statement"}
}

// function adds a top-level function (declared, or a function or arrow
// bound to a name).
func (x *extractor) function(fn, outer *sitter.Node, name string, fid graphdb.NodeID) {
	n := x.node(outer, fn, name, name, graphdb.KindFunction, "")
	if fn.Kind() == "arrow_function" {
		n.SubKind = "arrow"
	}
	id := x.add(n)
	x.parent(id, fid)
	ret := x.typeName(fn.ChildByFieldName("return_type"))
	if ret == "" {
		ret = x.docReturns(fn)
	}
	x.define(name, &scopeDecl{ID: id, Kind: "function", Type: ret, Params: x.fnParams(fn)})
	// this in a function (not an arrow) is the instance when the function
	// is a constructor with assigned members (constructorFunc).
	this := name
	if fn.Kind() == "arrow_function" {
		this = ""
	}
	x.body(fn, id, this)
}

// body walks a function's parameters and body: its locals shadow
// top-level names, its calls (nested functions included) belong to id,
// and its declared types give returns and param_of edges.
func (x *extractor) body(fn *sitter.Node, id graphdb.NodeID, class string) {
	f := &funcInfo{locals: map[string]string{}}
	params := fn.ChildByFieldName("parameters")
	if params == nil {
		params = fn.ChildByFieldName("parameter") // x => ...
	}
	if id != "" {
		t := x.typeName(fn.ChildByFieldName("return_type"))
		if t == "" {
			t = x.docReturns(fn)
		}
		if t != "" {
			x.f.types = append(x.f.types, typeRef{from: id, kind: graphdb.EdgeReturns, typ: t, line: sitter.Line(fn), scope: x.f.scope})
		}
		doc := x.docParams(fn)
		if params != nil {
			for _, p := range sitter.Children(params) {
				t := x.typeName(p.ChildByFieldName("type"))
				if t == "" {
					t = doc[x.jsParamName(p)]
				}
				if t != "" {
					x.f.types = append(x.f.types, typeRef{from: id, kind: graphdb.EdgeParamOf, typ: t, line: sitter.Line(p), scope: x.f.scope})
				}
			}
		}
	}
	x.locals(fn, f)
	x.refs(params, id, class, f)
	x.refs(fn.ChildByFieldName("body"), id, class, f)
}

// locals collects the names a function binds, nested functions included:
// parameters and variables with their declared or evident types.
func (x *extractor) locals(root *sitter.Node, f *funcInfo) {
	n := root
	var bind func(p *sitter.Node, typ string)
	bind = func(p *sitter.Node, typ string) {
		if p == nil {
			return
		}
		switch p.Kind() {
		case "identifier", "shorthand_property_identifier_pattern":
			name := x.text(p)
			if old, ok := f.locals[name]; !ok || old == "" {
				f.locals[name] = typ
			}
		case "object_pattern", "array_pattern", "pair_pattern", "rest_pattern", "assignment_pattern", "object_assignment_pattern":
			for _, c := range sitter.Children(p) {
				if p.Kind() == "pair_pattern" && c.Equals(*p.ChildByFieldName("key")) {
					continue
				}
				bind(c, "")
			}
		}
	}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Kind() {
		case "required_parameter", "optional_parameter":
			bind(n.ChildByFieldName("pattern"), x.typeName(n.ChildByFieldName("type")))
		case "variable_declarator":
			if nm, v := n.ChildByFieldName("name"), n.ChildByFieldName("value"); nm != nil && nm.Kind() == "identifier" && v != nil && v.Kind() == "this" {
				f.locals[x.text(nm)] = "~" // var self = this: "~" is this
				break
			}
			if nm, v := n.ChildByFieldName("name"), n.ChildByFieldName("value"); nm != nil && nm.Kind() == "object_pattern" && v != nil && v.Kind() == "this" {
				// const { a, b } = this: "~a" is the type of this.a.
				for _, c := range sitter.Children(nm) {
					if c.Kind() == "shorthand_property_identifier_pattern" {
						f.locals[x.text(c)] = "~" + x.text(c)
					}
				}
				break
			}
			t := x.typeName(n.ChildByFieldName("type"))
			if t == "" {
				t = x.docType(n)
			}
			if t == "" {
				t = x.valueType(n.ChildByFieldName("value"))
			}
			bind(n.ChildByFieldName("name"), t)
		case "function_declaration", "class_declaration", "generator_function_declaration", "function_expression", "function":
			if !n.Equals(*root) { // a function's own name is not its local (recursion)
				bind(n.ChildByFieldName("name"), "")
			}
		case "arguments":
			x.contextual(n, f)
		case "catch_clause":
			bind(n.ChildByFieldName("parameter"), "")
		case "for_in_statement":
			bind(n.ChildByFieldName("left"), "")
		case "arrow_function":
			if p := n.ChildByFieldName("parameter"); p != nil {
				bind(p, x.docParams(n)[x.text(p)])
			}
		case "formal_parameters":
			var doc map[string]string
			if x.parentOf(n) != nil {
				doc = x.docParams(x.parentOf(n))
			}
			for _, c := range sitter.Children(n) {
				switch c.Kind() {
				case "identifier", "object_pattern", "array_pattern":
					bind(c, doc[x.jsParamName(c)]) // JavaScript parameters
				case "assignment_pattern":
					bind(c.ChildByFieldName("left"), doc[x.jsParamName(c)])
				}
			}
		}
		for _, c := range sitter.Children(n) {
			walk(c)
		}
	}
	walk(n)
}

// contextual types the unannotated parameters of callbacks passed in args
// by the callee's declared parameter types: "@c|f|i|j" (or "@n|C|i|j" for
// new C(...)) is the type of parameter j of the function type of
// parameter i of the callee.
func (x *extractor) contextual(args *sitter.Node, f *funcInfo) {
	call := x.parentOf(args)
	if call == nil {
		return
	}
	kind, callee := "c", ""
	switch call.Kind() {
	case "call_expression":
		callee = x.dotted(call.ChildByFieldName("function"))
	case "new_expression":
		kind, callee = "n", x.dotted(call.ChildByFieldName("constructor"))
	}
	if callee == "" || strings.ContainsRune(callee, '|') {
		return
	}
	for i, a := range sitter.Children(args) {
		if a.Kind() != "arrow_function" && a.Kind() != "function_expression" && a.Kind() != "function" {
			continue
		}
		if p := a.ChildByFieldName("parameter"); p != nil && p.Kind() == "identifier" {
			if _, ok := f.locals[x.text(p)]; !ok {
				f.locals[x.text(p)] = fmt.Sprintf("@%s|%s|%d|0", kind, callee, i)
			}
			continue
		}
		params := a.ChildByFieldName("parameters")
		if params == nil {
			continue
		}
		for j, p := range x.paramList(params) {
			pat := p
			if p.Kind() != "identifier" {
				pat = p.ChildByFieldName("pattern")
			}
			if pat == nil || pat.Kind() != "identifier" || p.ChildByFieldName("type") != nil {
				continue
			}
			if _, ok := f.locals[x.text(pat)]; !ok {
				f.locals[x.text(pat)] = fmt.Sprintf("@%s|%s|%d|%d", kind, callee, i, j)
			}
		}
	}
}

// refs collects the calls, constructions and JSX elements under n.
func (x *extractor) refs(n *sitter.Node, owner graphdb.NodeID, class string, f *funcInfo) {
	if n == nil || owner == "" || x.f.decl {
		return
	}
	add := func(expr string, at *sitter.Node, ctor bool) {
		if head, rest, ok := strings.Cut(expr, "."); ok && f != nil && hasKey(f.locals, head) {
			if c := x.narrowed(at, head); c != "" {
				expr = "^" + strings.ReplaceAll(c, ".", ":") + "." + rest
			}
		}
		if expr != "" {
			x.f.refs = append(x.f.refs, ref{from: owner, kind: graphdb.EdgeCalls, expr: expr, line: sitter.Line(at), class: class, fn: f, ctor: ctor, scope: x.f.scope})
		}
	}
	switch n.Kind() {
	case "call_expression":
		if s := x.requireSpec(n); s != "" {
			x.useSpec(s, n)
		} else {
			add(x.dotted(n.ChildByFieldName("function")), n, false)
		}
	case "new_expression":
		add(x.dotted(n.ChildByFieldName("constructor")), n, true)
	case "jsx_opening_element", "jsx_self_closing_element":
		if nm := x.dotted(n.ChildByFieldName("name")); nm != "" && (strings.Contains(nm, ".") || nm[0] >= 'A' && nm[0] <= 'Z') {
			add(nm, n, false)
		}
	case "import_statement":
		x.importStmt(n)
		return
	}
	for _, c := range sitter.Children(n) {
		x.refs(c, owner, class, f)
	}
}
