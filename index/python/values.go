//go:build cgo

package python

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// DESIGN: Python functions used as values. Besides aliases (f = func;
// f(), types.go), a function value reaches a call in three ways the
// indexer follows, as PyCG does, within a module and one call level
// across modules:
//
//   - Passed as an argument: a function records which of its parameters
//     it calls, and where (py.params, py.pcalls: `def apply(f, x): return
//     f(x)`). A call `apply(helper, 1)` whose target is known binds its
//     arguments to those parameters (by position, self/cls left out for
//     methods, or by keyword) and adds, for each argument whose value is a
//     function (or a class, or an instance with __call__), the call edge
//     apply → helper at apply's call of f. The file of the call site owns
//     that edge; it is re-resolved when apply's module changes its
//     surface, which includes py.pcalls. A parameter passed on to a
//     further call is not followed (one level), nor are calls of a method
//     through its class (Cls.m(obj, f)), where the first argument's role
//     depends on the method's kind.
//   - Returned: a function's inferred return vexpr may be a function
//     (`def get(): return helper`), so get()() and `h = get(); h()` call
//     helper.
//   - Stored in a container literal: a list, tuple, set or dict literal
//     is the vexpr "l:E1,E2,…" (elements, or dict values; at most 8), and
//     `HANDLERS[k]()`, `HANDLERS.get(k)()`, `for fn in fns: fn()` and
//     `for fn in HANDLERS.values(): fn()` call each element that is a
//     function. Later stores (HANDLERS[k] = f, fns.append(f)) are not
//     followed.
//
// A function named where its value is used (an argument, an assigned or
// returned value, a container element, a default) without being called
// there gets a references edge from the enclosing function (or module or
// class) at that site, as in the Go frontend; names bound locally are not
// followed (their assignment is the reference).

// callArg is a call argument that may be a function value: its position
// among the positional arguments (-1 for a keyword argument), its keyword
// and its vexpr.
type callArg struct {
	pos int
	kw  string
	ty  string
}

// paramCall is a call of a parameter inside a function.
type paramCall struct {
	param string
	line  int
}

// paramList lists def's parameters a call's arguments bind, in order:
// keyword-only ones (after * or *args) as "*name"; the first is left out
// when dropFirst (self or cls of a method).
func (x *extractor) paramList(def *sitter.Node, dropFirst bool) []string {
	p := fieldChild(def, "parameters")
	if p == nil {
		return nil
	}
	var out []string
	kwOnly := false
	for _, c := range sitter.Children(p) {
		name := ""
		switch c.Kind() {
		case "identifier":
			name = x.text(c)
		case "default_parameter", "typed_default_parameter":
			if n := fieldChild(c, "name"); n != nil {
				name = x.text(n)
			}
		case "typed_parameter":
			for _, cc := range sitter.Children(c) {
				if cc.Kind() == "identifier" {
					name = x.text(cc)
					break
				}
			}
			if c.NamedChildCount() > 0 && c.NamedChild(0).Kind() != "identifier" {
				kwOnly = true // *args: Sequence[int]
				continue
			}
		case "list_splat_pattern", "keyword_separator":
			kwOnly = true
			continue
		default: // **kwargs, the positional-only marker /
			continue
		}
		if dropFirst {
			dropFirst = false
			continue
		}
		if kwOnly {
			name = "*" + name
		}
		out = append(out, name)
	}
	return out
}

// callArgs returns a call's arguments that may be function values:
// dotted names, calls and subscripts of them. Positions after a *splat
// are unknown, so positional arguments from there on are left out.
func (x *extractor) callArgs(args *sitter.Node) []callArg {
	if args == nil || args.Kind() != "argument_list" {
		return nil
	}
	var out []callArg
	pos := 0
	for _, c := range sitter.Children(args) {
		switch c.Kind() {
		case "keyword_argument":
			if ty := x.valueType(fieldChild(c, "value")); strings.HasPrefix(ty, "v:") {
				out = append(out, callArg{pos: -1, kw: x.text(fieldChild(c, "name")), ty: ty})
			}
		case "list_splat", "dictionary_splat":
			pos = -1 << 30
		case "comment":
		default:
			if ty := x.valueType(c); pos >= 0 && strings.HasPrefix(ty, "v:") {
				out = append(out, callArg{pos: pos, ty: ty})
			}
			pos++
		}
	}
	return out
}

// valueRefs records the names under n that stand where a value is used:
// call arguments, assigned, returned and yielded values, container
// elements and dict values, parameter defaults. They resolve to
// references edges when the name is a function or method.
func (x *extractor) valueRefs(n *sitter.Node, kind string, owner graphdb.NodeID, class string, d *decl) {
	ref := func(v *sitter.Node) {
		if v == nil || v.Kind() != "identifier" && v.Kind() != "attribute" {
			return
		}
		if e := x.dotted(v); e != "" && !strings.HasPrefix(e, "super(") {
			x.f.refs = append(x.f.refs, reference{from: owner, kind: graphdb.EdgeReferences, expr: e, line: sitter.Line(v), class: class, decl: d, module: x.f.module})
		}
	}
	switch kind {
	case "argument_list", "list", "tuple", "set", "expression_list":
		for _, c := range sitter.Children(n) {
			if c.Kind() == "keyword_argument" {
				ref(fieldChild(c, "value"))
			} else {
				ref(c)
			}
		}
	case "assignment", "augmented_assignment":
		ref(fieldChild(n, "right"))
	case "return_statement", "yield":
		if n.NamedChildCount() == 1 {
			ref(n.NamedChild(0))
		}
	case "pair", "default_parameter", "typed_default_parameter":
		ref(fieldChild(n, "value"))
	}
}

// valueTargets resolves a value reference: the function or method a name
// denotes, nil for classes, modules, data and names bound in the
// enclosing function or module variables (their binding is the
// reference).
func (t *symbolTable) valueTargets(r reference) []graphdb.NodeID {
	s := t.mods[r.module]
	if s == nil {
		return nil
	}
	head, _, dotted := strings.Cut(r.expr, ".")
	selfish := r.class != "" && (head == "self" || head == "cls")
	switch {
	case selfish:
	case r.decl != nil && r.decl.locals[head] && r.decl.imports[head] == "":
		return nil
	case r.decl == nil || r.decl.imports[head] == "":
		if _, isVar := s.vars[head]; isVar && s.defs[head].id == "" && s.imports[head] == "" && !dotted {
			return nil
		}
	}
	v, ok := t.evalExpr(evalCtx{scope: s, decl: r.decl, class: r.class}, r.expr, 0)
	if !ok || v.fn == "" {
		return nil
	}
	return []graphdb.NodeID{v.fn}
}

// flow adds what a call passing function values makes its targets call:
// for each target (ids) that calls a parameter, the arguments bound to it
// that evaluate to functions, classes or callable instances.
func (t *symbolTable) flow(r reference, ids []graphdb.NodeID, add func(graphdb.Edge)) {
	if len(r.args) == 0 {
		return
	}
	s := t.mods[r.module]
	if i := strings.LastIndexByte(r.expr, '.'); i > 0 && !strings.HasPrefix(r.expr, "super(") {
		// Cls.m(obj, f): whether the first argument is self depends on m's
		// kind (instance, class or static method); not followed.
		if v, ok := t.evalExpr(evalCtx{scope: s, decl: r.decl, class: r.class}, r.expr[:i], 0); ok && v.cls != nil && !v.inst {
			return
		}
	}
	for _, id := range ids {
		f, ok := t.fns[id]
		if !ok || len(f.info.pcalls) == 0 || t.mods[f.module] == nil {
			continue
		}
		file := t.mods[f.module].file
		for _, pc := range f.info.pcalls {
			a, ok := bindArg(f.info.params, pc.param, r.args)
			if !ok {
				continue
			}
			v, ok := t.evalType(evalCtx{scope: s, decl: r.decl, class: r.class}, a.ty, 0)
			if !ok {
				continue
			}
			for _, to := range t.callTargets(v) {
				if !t.isReplaced(to) {
					add(graphdb.Edge{From: id, To: to, Kind: graphdb.EdgeCalls, File: file, Line: pc.line})
				}
			}
		}
	}
}

// bindArg finds the argument bound to parameter name.
func bindArg(params []string, name string, args []callArg) (callArg, bool) {
	pos := -1
	for i, p := range params {
		if p == name {
			pos = i
			break
		}
	}
	for _, a := range args {
		if a.kw == name || pos >= 0 && a.pos == pos {
			return a, true
		}
	}
	return callArg{}, false
}

// callTargets is what calling value v calls: a function or method, a
// class's __new__ and __init__ (or the class), an instance's __call__,
// each of several alternatives (container elements).
func (t *symbolTable) callTargets(v evalValue) []graphdb.NodeID {
	switch {
	case len(v.alts) > 0:
		var out []graphdb.NodeID
		for _, a := range v.alts {
			out = append(out, t.callTargets(a)...)
		}
		return out
	case v.fn != "":
		return []graphdb.NodeID{v.fn}
	case v.cls != nil && !v.inst:
		return t.construct(v.cls)
	case v.cls != nil:
		if id, _, ok := t.methodOf(v.cls, "__call__", false); ok {
			return []graphdb.NodeID{id}
		}
	}
	return nil
}

// containerType is the vexpr of a list, tuple, set or dict literal whose
// elements (dict values) are followed: "l:E1,E2,…" with each distinct
// element vexpr that is not a container itself, "?" past 8 or when none
// is known.
func (x *extractor) containerType(n *sitter.Node) string {
	var alts []string
	seen := map[string]bool{}
	for _, c := range sitter.Children(n) {
		if c.Kind() == "pair" {
			c = fieldChild(c, "value")
		}
		if c == nil || c.Kind() == "comment" {
			continue
		}
		ty := x.valueType(c)
		parts := []string{ty}
		if strings.HasPrefix(ty, "u:") {
			parts = strings.Split(ty[2:], "|")
		}
		for _, p := range parts {
			if p == "" || p == unknownType || strings.HasPrefix(p, "l:") || seen[p] {
				continue
			}
			seen[p] = true
			alts = append(alts, p)
		}
	}
	if len(alts) == 0 || len(alts) > 8 {
		return unknownType
	}
	return "l:" + strings.Join(alts, ",")
}

// elements evaluates an element of container v: the one known element
// value, or its alternatives (evalValue.alts) when the container holds
// several.
func (t *symbolTable) elements(v evalValue, depth int) (evalValue, bool) {
	if v.elem != "" {
		return t.evalType(v.elemCtx, "a:"+v.elem, depth+1)
	}
	if v.items == "" {
		return evalValue{}, false
	}
	var alts []evalValue
	for _, it := range strings.Split(v.items, ",") {
		if e, ok := t.evalType(v.itemsCtx, it, depth+1); ok {
			alts = append(alts, e)
		}
	}
	switch len(alts) {
	case 0:
		return evalValue{}, false
	case 1:
		return alts[0], true
	}
	return evalValue{alts: alts}, true
}

// containerMethods are the dict and list methods whose result is an
// element (get, pop) or the container's elements again (values, copy).
var containerMethods = map[string]bool{"get": true, "pop": true, "values": true, "copy": true}
