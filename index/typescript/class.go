//go:build cgo

package typescript

import (
	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// class adds a class, its members and its decorators.
func (x *extractor) class(st, outer *sitter.Node, name string, decs []*sitter.Node, fid graphdb.NodeID) {
	n := x.node(outer, st, name, name, graphdb.KindType, "class")
	id := x.add(n)
	x.parent(id, fid)
	d := &scopeDecl{ID: id, Kind: "class", Members: map[string]*classMember{}}
	for _, c := range sitter.Children(st) {
		switch c.Kind() {
		case "class_heritage":
			for _, h := range sitter.Children(c) {
				switch h.Kind() {
				case "extends_clause":
					if b := x.dotted(h.ChildByFieldName("value")); b != "" {
						d.Bases = append(d.Bases, b)
					}
				case "implements_clause":
					for _, t := range sitter.Children(h) {
						if tn := x.typeName(t); tn != "" {
							d.Impls = append(d.Impls, tn)
						}
					}
				default: // JavaScript: class_heritage holds the expression
					if b := x.dotted(h); b != "" && len(d.Bases) == 0 {
						d.Bases = append(d.Bases, b)
					}
				}
			}
		case "decorator":
			decs = append(decs, c)
		}
	}
	x.define(name, d)
	x.decorators(decs, id, name)
	body := st.ChildByFieldName("body")
	if body == nil {
		return
	}
	var pending []*sitter.Node
	for _, m := range sitter.Children(body) {
		switch m.Kind() {
		case "decorator":
			pending = append(pending, m)
			continue
		case "method_definition", "abstract_method_signature":
			x.method(m, name, d, pending)
		case "public_field_definition", "field_definition":
			x.field(m, name, d, pending)
		case "method_signature":
			mn := x.text(m.ChildByFieldName("name"))
			if _, ok := d.Members[mn]; !ok && mn != "" {
				d.Members[mn] = &classMember{Type: x.typeName(m.ChildByFieldName("return_type")), Fn: true, Params: x.fnParams(m)}
			}
		case "class_static_block":
			x.refs(m, id, name, nil)
		}
		pending = nil
	}
	x.thisAssigns(body, d)
}

// literalType marks a property assigned a literal (array, object,
// string, number): a value of no repository class.
const literalType = "!"

// thisAssigns adds the properties a class's methods assign to this
// (this.items = [], this.repo = new Repo()) and does not declare, typed
// by the first value that tells: what JavaScript classes declare their
// fields with. Nested classes and non-arrow functions have a this of
// their own and are not entered.
func (x *extractor) thisAssigns(body *sitter.Node, d *scopeDecl) {
	var params map[string]string // the method's typed parameters
	var walk func(n *sitter.Node, top bool)
	walk = func(n *sitter.Node, top bool) {
		switch n.Kind() {
		case "class", "class_declaration", "function_expression", "function", "function_declaration", "generator_function", "generator_function_declaration":
			if !top {
				return
			}
		case "assignment_expression":
			left, right := n.ChildByFieldName("left"), n.ChildByFieldName("right")
			if left != nil && right != nil && left.Kind() == "member_expression" {
				obj, prop := left.ChildByFieldName("object"), left.ChildByFieldName("property")
				if obj != nil && prop != nil && obj.Kind() == "this" && prop.Kind() == "property_identifier" {
					name := x.text(prop)
					if old := d.Members[name]; old == nil || old.ID == "" && old.Type == "" {
						t := x.docType(n)
						if t == "" && right.Kind() == "identifier" {
							t = params[x.text(right)] // this.repo = repo
						}
						if t == "" {
							t = x.assignedType(right)
						}
						d.Members[name] = &classMember{Type: t}
					}
				}
			}
		}
		for _, c := range sitter.Children(n) {
			walk(c, false)
		}
	}
	for _, m := range sitter.Children(body) {
		if m.Kind() != "method_definition" {
			continue
		}
		params = x.docParams(m)
		if ps := m.ChildByFieldName("parameters"); ps != nil {
			for _, p := range x.paramList(ps) {
				if pat := p.ChildByFieldName("pattern"); pat != nil && pat.Kind() == "identifier" {
					if t := x.typeName(p.ChildByFieldName("type")); t != "" {
						if params == nil {
							params = map[string]string{}
						}
						params[x.text(pat)] = t
					}
				}
			}
		}
		if b := m.ChildByFieldName("body"); b != nil {
			walk(b, true)
		}
	}
}

// assignedType is the type expression of an assigned value: valueType,
// or literalType for a literal.
func (x *extractor) assignedType(v *sitter.Node) string {
	switch v.Kind() {
	case "array", "object", "string", "template_string", "number", "true", "false", "regex":
		return literalType
	}
	return x.valueType(v)
}

// memberName is the name of a method or field; "" for computed names.
func (x *extractor) memberName(m *sitter.Node) string {
	nm := m.ChildByFieldName("name")
	if nm == nil {
		nm = m.ChildByFieldName("property")
	}
	if nm == nil {
		return ""
	}
	switch nm.Kind() {
	case "property_identifier", "private_property_identifier", "identifier":
		return x.text(nm)
	case "string":
		return x.spec(nm)
	}
	return ""
}

func isPrivate(x *extractor, m *sitter.Node, name string) bool {
	if len(name) > 0 && name[0] == '#' {
		return true
	}
	for _, c := range sitter.Children(m) {
		if c.Kind() == "accessibility_modifier" && x.text(c) == "private" {
			return true
		}
	}
	return false
}

// method adds a class method (constructor included).
func (x *extractor) method(m *sitter.Node, class string, d *scopeDecl, decs []*sitter.Node) {
	name := x.memberName(m)
	if name == "" {
		return
	}
	for _, c := range sitter.Children(m) {
		if c.Kind() == "decorator" {
			decs = append(decs, c)
		}
	}
	n := x.node(m, m, name, class+"."+name, graphdb.KindMember, "method")
	if len(decs) > 0 {
		n.StartLine = sitter.Line(decs[0])
	}
	n.Exported = !isPrivate(x, m, name)
	id := x.add(n)
	x.parent(id, d.ID)
	old := d.Members[name]
	if old == nil || old.ID == "" {
		mem := &classMember{ID: id, Type: x.typeName(m.ChildByFieldName("return_type")), Fn: true, Params: x.fnParams(m)}
		if mem.Type == "" {
			mem.Type = x.docReturns(m)
		}
		if mem.Type == "" && old != nil {
			mem.Type = old.Type
		}
		d.Members[name] = mem
	}
	x.decorators(decs, id, class)
	x.body(m, id, class)
	if name == "constructor" {
		x.paramProperties(m, class, d)
	}
}

// paramProperties adds the fields a constructor declares with
// accessibility modifiers (constructor(private repo: Repo)).
func (x *extractor) paramProperties(ctor *sitter.Node, class string, d *scopeDecl) {
	params := ctor.ChildByFieldName("parameters")
	if params == nil {
		return
	}
	for _, p := range sitter.Children(params) {
		mod := false
		for _, c := range sitter.Children(p) {
			if c.Kind() == "accessibility_modifier" || c.Kind() == "override_modifier" || x.text(c) == "readonly" {
				mod = true
			}
		}
		pat := p.ChildByFieldName("pattern")
		if !mod || pat == nil || pat.Kind() != "identifier" {
			continue
		}
		name := x.text(pat)
		n := x.node(p, p, name, class+"."+name, graphdb.KindMember, "field")
		n.Exported = !isPrivate(x, p, name)
		id := x.add(n)
		x.parent(id, d.ID)
		if _, ok := d.Members[name]; !ok {
			d.Members[name] = &classMember{ID: id, Type: x.typeName(p.ChildByFieldName("type"))}
		}
	}
}

// field adds a class field; one bound to a function is a method.
func (x *extractor) field(m *sitter.Node, class string, d *scopeDecl, decs []*sitter.Node) {
	name := x.memberName(m)
	if name == "" {
		return
	}
	for _, c := range sitter.Children(m) {
		if c.Kind() == "decorator" {
			decs = append(decs, c)
		}
	}
	v := m.ChildByFieldName("value")
	fn := v != nil && (v.Kind() == "arrow_function" || v.Kind() == "function_expression" || v.Kind() == "function")
	sub := "field"
	if fn {
		sub = "method"
	}
	n := x.node(m, m, name, class+"."+name, graphdb.KindMember, sub)
	if fn {
		n.Signature = x.signature(v)
	}
	n.Exported = !isPrivate(x, m, name)
	id := x.add(n)
	x.parent(id, d.ID)
	if _, ok := d.Members[name]; !ok {
		t := x.typeName(m.ChildByFieldName("type"))
		if t == "" && !fn {
			t = x.docType(m)
		}
		if t == "" && !fn {
			t = x.valueType(v)
		}
		if fn {
			if t = x.typeName(v.ChildByFieldName("return_type")); t == "" {
				t = x.docReturns(m)
			}
		}
		d.Members[name] = &classMember{ID: id, Type: t, Fn: fn}
	}
	x.decorators(decs, id, class)
	if fn {
		x.body(v, id, class)
	} else {
		x.refs(v, id, class, nil)
	}
}

// decorators records decorated_by references (@f and @f(args) → f) and
// the calls in decorator arguments.
func (x *extractor) decorators(decs []*sitter.Node, id graphdb.NodeID, class string) {
	if id == "" {
		return
	}
	for _, d := range decs {
		if d.NamedChildCount() == 0 {
			continue
		}
		e := d.NamedChild(0)
		if e.Kind() == "call_expression" {
			x.refs(e.ChildByFieldName("arguments"), id, class, nil)
			e = e.ChildByFieldName("function")
		}
		if s := x.dotted(e); s != "" {
			x.f.refs = append(x.f.refs, ref{from: id, kind: graphdb.EdgeDecoratedBy, expr: s, line: sitter.Line(d), scope: x.f.scope})
		}
	}
}

// iface adds an interface and its method and property signatures.
func (x *extractor) iface(st, outer *sitter.Node, name string, fid graphdb.NodeID) {
	if name == "" {
		return
	}
	id := x.add(x.node(outer, st, name, name, graphdb.KindType, "interface"))
	x.parent(id, fid)
	d := &scopeDecl{ID: id, Kind: "interface", Members: map[string]*classMember{}}
	if old := x.f.scope.Decls[name]; old != nil && old.Kind == "interface" {
		d = old // declaration merging: one interface, members of both
	}
	for _, c := range sitter.Children(st) {
		if c.Kind() == "extends_type_clause" {
			for _, t := range sitter.Children(c) {
				if tn := x.typeName(t); tn != "" {
					d.Bases = append(d.Bases, tn)
				}
			}
		}
	}
	x.define(name, d)
	body := st.ChildByFieldName("body")
	if body == nil {
		return
	}
	for _, m := range sitter.Children(body) {
		sub, typ := "", ""
		switch m.Kind() {
		case "method_signature":
			sub, typ = "method", x.typeName(m.ChildByFieldName("return_type"))
		case "property_signature":
			sub, typ = "field", x.typeName(m.ChildByFieldName("type"))
		default:
			continue
		}
		mn := x.memberName(m)
		if mn == "" {
			continue
		}
		n := x.node(m, m, mn, name+"."+mn, graphdb.KindMember, sub)
		n.Exported = true
		mid := x.add(n)
		x.parent(mid, id)
		if _, ok := d.Members[mn]; !ok {
			d.Members[mn] = &classMember{ID: mid, Type: typ, Fn: sub == "method"}
		}
	}
}
