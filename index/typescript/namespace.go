//go:build cgo

package typescript

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// DESIGN: namespaces and object literals. A namespace (`namespace N {}`,
// `namespace A.B {}`, `declare namespace N {}`, `module N {}`) is a scope
// of its own nested in the file's: a scopeDecl of kind "namespace" whose NS
// holds what the body declares and exports, serialised with the file's
// scope. Its node is a module of sub-kind "namespace" (qname
// "file-module.N"), the parent of what it declares; code in its body
// resolves names in the namespace first, then in the enclosing scopes
// (fileScope.parent), and N.f resolves as an export of N. Blocks of the
// same namespace in one file merge. In a declared namespace (declare, or
// a declaration file) every declaration counts as exported.
//
// A top-level `const api = { f() {}, g: () => {}, h: function () {} }`
// gives each function-valued property a function node of sub-kind
// "method" ("file-module.api.f", parent the file or namespace) and the
// variable a member per property, so api.f() and this.g() in its methods
// resolve; `{ f }` shorthand properties stand for the function f of the
// same scope. The object is a value of known shape: a call of a property
// it lacks gets no by-name candidates.

// namespace adds a namespace declaration and walks its body; it returns
// the name it binds in the enclosing scope ("A" for `namespace A.B`), ""
// for an ambient module with a string name (declare module "m").
func (x *extractor) namespace(st, outer *sitter.Node, fid graphdb.NodeID) string {
	nameNode := st.ChildByFieldName("name")
	if nameNode == nil || nameNode.Kind() != "identifier" && nameNode.Kind() != "nested_identifier" {
		return ""
	}
	parts := strings.Split(strings.Join(strings.Fields(x.text(nameNode)), ""), ".")
	oldScope, oldPrefix, oldAmbient := x.f.scope, x.prefix, x.ambient
	defer func() { x.f.scope, x.prefix, x.ambient = oldScope, oldPrefix, oldAmbient }()
	if p := x.parentOf(st); p != nil && p.Kind() == "ambient_declaration" || x.f.decl {
		x.ambient = true
	}
	parent := fid
	for i, p := range parts {
		sc := x.f.scope
		d := sc.Decls[p]
		if d == nil || d.Kind != "namespace" || d.NS == nil {
			if d != nil {
				return parts[0] // the name is taken by another declaration
			}
			n := x.node(outer, st, p, p, graphdb.KindModule, "namespace")
			if i > 0 {
				n.Exported = true
			}
			id := x.add(n)
			x.parent(id, parent)
			d = &scopeDecl{ID: id, Kind: "namespace", NS: newScope(x.f.rel, x.f.module)}
			d.NS.parent = sc
			sc.Decls[p] = d
		}
		if i > 0 || x.ambient {
			sc.Exports[p] = p // A.B: B is a member of A
		}
		x.f.scope, x.prefix, parent = d.NS, x.prefix+p+".", d.ID
	}
	if body := st.ChildByFieldName("body"); body != nil {
		for _, c := range sitter.Children(body) {
			x.top(c, parent, parent)
		}
	}
	if x.ambient {
		for n := range x.f.scope.Decls {
			x.f.scope.Exports[n] = n
		}
	}
	return parts[0]
}

// objectLiteral binds a top-level variable initialised with an object
// literal: function-valued properties become function nodes and members
// of the variable's scopeDecl, other properties members typed by their value.
func (x *extractor) objectLiteral(obj, outer *sitter.Node, name string, mid, fid graphdb.NodeID) *scopeDecl {
	d := &scopeDecl{Kind: "var", Type: literalType, Members: map[string]*classMember{}}
	for _, p := range sitter.Children(obj) {
		switch p.Kind() {
		case "method_definition":
			if key := x.memberName(p); key != "" {
				d.Members[key] = x.objectMethod(p, p, p, name, key, fid)
			}
		case "pair":
			key, val := x.memberNameOfKey(p.ChildByFieldName("key")), p.ChildByFieldName("value")
			switch {
			case key == "" || val == nil:
				x.refs(p, mid, "", nil)
			case isFuncValue(val):
				d.Members[key] = x.objectMethod(val, p, val, name, key, fid)
			default:
				d.Members[key] = &classMember{Type: x.assignedType(val)}
				x.refs(val, mid, "", nil)
			}
		case "shorthand_property_identifier":
			x.shorthands = append(x.shorthands, shorthandRef{scope: x.f.scope, d: d, key: x.text(p)})
		default:
			x.refs(p, mid, "", nil)
		}
	}
	return d
}

// objectMethod adds one function-valued property of an object literal.
func (x *extractor) objectMethod(fn, outer, sig *sitter.Node, obj, key string, fid graphdb.NodeID) *classMember {
	n := x.node(outer, sig, key, obj+"."+key, graphdb.KindFunction, "method")
	n.Exported = x.f.scope.Exports[obj] != ""
	id := x.add(n)
	x.parent(id, fid)
	ret := x.typeName(fn.ChildByFieldName("return_type"))
	if ret == "" {
		ret = x.docReturns(outer)
	}
	x.body(fn, id, obj)
	return &classMember{ID: id, Type: ret, Fn: true, Params: x.fnParams(fn)}
}

// shorthandRef is a `{ f }` property waiting for the end of the file,
// when every function of its scope is known.
type shorthandRef struct {
	scope *fileScope
	d     *scopeDecl
	key   string
	name  string // the function's name when it is not key (X.key = name)
}

// bindShorthands types the shorthand properties of object literals by
// the functions (or classes) of the same name in their scope.
func (x *extractor) bindShorthands() {
	for _, sh := range x.shorthands {
		if _, ok := sh.d.Members[sh.key]; ok {
			continue
		}
		name := sh.key
		if sh.name != "" {
			name = sh.name
		}
		switch f := sh.scope.Decls[name]; {
		case f == nil:
		case f.Kind == "function" && f.ID != "":
			addMember(sh.d, sh.key, &classMember{ID: f.ID, Type: f.Type, Fn: true, Params: f.Params})
		case f.Kind == "var" && f.Type != "":
			addMember(sh.d, sh.key, &classMember{Type: f.Type})
		}
	}
}

// narrowed returns the class a local is narrowed to at n by an enclosing
// `name instanceof C` test: n in the then-branch of an if or a ternary,
// or right of `&&`, whose condition holds the test (alone or in a chain
// of &&). The innermost test wins; the walk stops at the enclosing
// function. Assignments to the local inside the branch are not followed.
func (x *extractor) narrowed(n *sitter.Node, name string) string {
	for cur := n; cur != nil; cur = x.parentOf(cur) {
		p := x.parentOf(cur)
		if p == nil {
			return ""
		}
		var cond *sitter.Node
		switch p.Kind() {
		case "function_declaration", "method_definition", "arrow_function", "function_expression", "function",
			"generator_function", "generator_function_declaration", "class_body":
			return ""
		case "if_statement", "ternary_expression":
			if c := p.ChildByFieldName("consequence"); c != nil && c.Equals(*cur) {
				cond = p.ChildByFieldName("condition")
			}
		case "binary_expression":
			if r := p.ChildByFieldName("right"); r != nil && r.Equals(*cur) && x.text(p.ChildByFieldName("operator")) == "&&" {
				cond = p.ChildByFieldName("left")
			}
		}
		if c := x.instanceOf(cond, name); c != "" {
			return c
		}
	}
	return ""
}

// instanceOf finds `name instanceof C` in a condition (parentheses and &&
// chains looked through) and returns C.
func (x *extractor) instanceOf(cond *sitter.Node, name string) string {
	if cond == nil {
		return ""
	}
	switch cond.Kind() {
	case "parenthesized_expression":
		if cond.NamedChildCount() == 1 {
			return x.instanceOf(cond.NamedChild(0), name)
		}
	case "binary_expression":
		l, r := cond.ChildByFieldName("left"), cond.ChildByFieldName("right")
		switch x.text(cond.ChildByFieldName("operator")) {
		case "instanceof":
			if l != nil && l.Kind() == "identifier" && x.text(l) == name {
				return x.dotted(r)
			}
		case "&&":
			if c := x.instanceOf(l, name); c != "" {
				return c
			}
			return x.instanceOf(r, name)
		}
	}
	return ""
}
