//go:build cgo

package typescript

import (
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/sitter"
)

// An assigned method is a function bound by assignment to a property of a
// top-level name rather than declared in a class body or object literal:
// the way older JavaScript (before classes) defines methods.
//
//	function Route(path) {}                   // a constructor function
//	Route.prototype.dispatch = function () {} // a method of its instances
//	Route.prototype = { match() {} }          // the same, as a literal
//	var proto = module.exports = function () {}
//	proto.handle = function handle() {}       // a property of proto
//	req.get = req.header = function header() {}
//	Object.defineProperty(req, "ip", { get: function ip() {} })
//
// Each becomes a node: X.prototype.m a member of X (Kind member, SubKind
// "method", parent X's node, as a class method), X.m and a property
// defined with Object.defineProperty a function of X (Kind function,
// SubKind "method", parent the file, as an object literal's function
// properties); both have Loc "path/file.js:X.m" and are members of X's
// scope declaration. A constructor function with prototype methods is a
// class for the resolver (new X() types a value, this.m() in its methods
// and x.m() on such a value resolve through its members).

// assignee is the left side of an assignment to a property of a top-level
// name: X.key or X.prototype.key.
type assignee struct {
	owner, key string
	proto      bool
}

// assignees parses the left sides of a chain a.b = a.c = value, returning
// them and the value; ok is false when a left side is no property of a
// top-level name.
func (x *extractor) assignees(as *sitter.Node) (lefts []assignee, value *sitter.Node, ok bool) {
	for as != nil && as.Kind() == "assignment_expression" {
		l := as.ChildByFieldName("left")
		if l == nil || l.Kind() != "member_expression" {
			return nil, nil, false
		}
		parts := strings.Split(x.dotted(l), ".")
		switch {
		case len(parts) == 2 && parts[0] != "this" && parts[0] != "exports" && parts[0] != "module":
			lefts = append(lefts, assignee{owner: parts[0], key: parts[1]})
		case len(parts) == 3 && parts[1] == "prototype" && parts[0] != "this":
			lefts = append(lefts, assignee{owner: parts[0], key: parts[2], proto: true})
		default:
			return nil, nil, false
		}
		value = as.ChildByFieldName("right")
		as = value
	}
	return lefts, value, len(lefts) > 0 && value != nil
}

// assignedMember handles a top-level assignment of a function (or a name
// bound to one) to a property of a top-level function, class or object,
// and X.prototype = { ... }. It returns false for any other assignment,
// whose references the caller records.
func (x *extractor) assignedMember(as, st *sitter.Node, mid, fid graphdb.NodeID) bool {
	lefts, v, ok := x.assignees(as)
	if !ok {
		return false
	}
	owner := lefts[0].owner
	d := x.assignable(owner)
	if d == nil {
		return false
	}
	for _, l := range lefts[1:] {
		if l.owner != owner {
			return false
		}
	}
	if len(lefts) == 1 && !lefts[0].proto && lefts[0].key == "prototype" {
		obj := objectValue(v)
		if obj == nil {
			return false
		}
		x.prototypeLiteral(obj, owner, d, mid, fid)
		return true
	}
	var mem *classMember
	switch {
	case isFuncValue(v):
		last := lefts[len(lefts)-1]
		mem = x.assignedFunc(v, st, v, owner, last.key, last.proto, d, fid)
	case v.Kind() == "identifier":
		// A function declared anywhere in the file (declarations are
		// hoisted): bound at the end of the file, with the shorthands.
		for _, l := range lefts {
			x.shorthands = append(x.shorthands, shorthandRef{scope: x.f.scope, d: d, key: l.key, name: x.text(v)})
		}
		return true
	default:
		return false
	}
	for _, l := range lefts {
		addMember(d, l.key, mem)
	}
	return true
}

// assignable returns the scope declaration of a top-level name that can
// take assigned members (a function, a class, an object literal, a
// variable of no known type or bound to what a call returns, as in var
// res = Object.create(http.ServerResponse.prototype)); nil for others (a
// variable of a declared type or class).
func (x *extractor) assignable(owner string) *scopeDecl {
	switch d := x.f.scope.Decls[owner]; {
	case d == nil:
	case d.Kind == "function" || d.Kind == "class":
		return d
	case d.Kind == "var" && (d.Members != nil || d.Type == "" || strings.HasPrefix(d.Type, "()")):
		return d
	}
	return nil
}

// addMember binds key in d's members unless bound (the first assignment
// wins, as the first declaration does); a variable with members is an
// object for the resolver.
func addMember(d *scopeDecl, key string, m *classMember) {
	if d.Members == nil {
		d.Members = map[string]*classMember{}
		if d.Kind == "var" {
			d.Type = literalType
		}
	}
	if _, ok := d.Members[key]; !ok {
		d.Members[key] = m
	}
}

// assignedFunc adds one assigned function: a member of owner when it is
// set on the prototype or owner is a class, else a function-valued
// property. outer is the statement (lines, doc), sig the node whose text
// is the signature.
func (x *extractor) assignedFunc(fn, outer, sig *sitter.Node, owner, key string, proto bool, d *scopeDecl, fid graphdb.NodeID) *classMember {
	if !proto || d.ID == "" {
		return x.objectMethod(fn, outer, sig, owner, key, fid)
	}
	n := x.node(outer, sig, key, owner+"."+key, graphdb.KindMember, "method")
	n.Exported = !strings.HasPrefix(key, "_")
	id := x.add(n)
	x.parent(id, d.ID)
	ret := x.typeName(fn.ChildByFieldName("return_type"))
	if ret == "" {
		ret = x.docReturns(outer)
	}
	x.body(fn, id, owner)
	return &classMember{ID: id, Type: ret, Fn: true, Params: x.fnParams(fn)}
}

// prototypeLiteral adds the function-valued properties of X.prototype =
// { ... } as methods of X.
func (x *extractor) prototypeLiteral(obj *sitter.Node, owner string, d *scopeDecl, mid, fid graphdb.NodeID) {
	for _, p := range sitter.Children(obj) {
		var key string
		var fn *sitter.Node
		switch p.Kind() {
		case "method_definition":
			key, fn = x.memberName(p), p
		case "pair":
			key, fn = x.memberNameOfKey(p.ChildByFieldName("key")), p.ChildByFieldName("value")
		}
		if key == "" || !isFuncValue(fn) && (fn == nil || fn.Kind() != "method_definition") {
			x.refs(p, mid, "", nil)
			continue
		}
		if d.Members[key] == nil {
			addMember(d, key, x.assignedFunc(fn, p, fn, owner, key, true, d, fid))
		}
	}
}

// definedProperty handles Object.defineProperty(X, "name", { get|value:
// function }) and Object.defineProperty(X.prototype, …) at top level: the
// function becomes a property (or method) of X. It returns false for any
// other call.
func (x *extractor) definedProperty(call, st *sitter.Node, mid, fid graphdb.NodeID) bool {
	if x.dotted(call.ChildByFieldName("function")) != "Object.defineProperty" {
		return false
	}
	args := call.ChildByFieldName("arguments")
	if args == nil || args.NamedChildCount() != 3 {
		return false
	}
	target, name, desc := args.NamedChild(0), args.NamedChild(1), objectValue(args.NamedChild(2))
	if name.Kind() != "string" || desc == nil {
		return false
	}
	owner, proto := x.dotted(target), false
	if o, ok := strings.CutSuffix(owner, ".prototype"); ok {
		owner, proto = o, true
	}
	if owner == "" || strings.Contains(owner, ".") {
		return false
	}
	d := x.assignable(owner)
	key := x.spec(name)
	if d == nil || key == "" {
		return false
	}
	var mem *classMember
	for _, p := range sitter.Children(desc) {
		var k string
		var fn *sitter.Node
		switch p.Kind() {
		case "method_definition": // { get() {} }
			k, fn = x.memberName(p), p
		case "pair":
			k, fn = x.memberNameOfKey(p.ChildByFieldName("key")), p.ChildByFieldName("value")
		}
		if (k == "get" || k == "value") && mem == nil && fn != nil && (isFuncValue(fn) || fn.Kind() == "method_definition") {
			mem = x.assignedFunc(fn, st, fn, owner, key, proto, d, fid)
			if k == "get" { // the property's value is what the getter returns
				mem = &classMember{ID: mem.ID, Type: mem.Type}
			}
			continue
		}
		x.refs(p, mid, "", nil)
	}
	if mem == nil {
		return false
	}
	addMember(d, key, mem)
	return true
}

// exportChain looks through `module.exports =` and `exports =` in a
// top-level variable's initialiser (var proto = module.exports =
// function () {}): the variable is what the module exports, bound to the
// value at the end of the chain, which it returns. Any other value is
// returned as it is.
func (x *extractor) exportChain(v *sitter.Node, name string) *sitter.Node {
	end, whole := v, false
	for end != nil && end.Kind() == "assignment_expression" {
		switch x.dotted(end.ChildByFieldName("left")) {
		case "module.exports":
			whole = true
		case "exports":
		default:
			return v
		}
		end = end.ChildByFieldName("right")
	}
	if end == nil {
		return v
	}
	if whole {
		x.f.scope.Whole = name
	}
	return end
}
