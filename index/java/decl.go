//go:build cgo

package java

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

var kinds = map[string]string{"class_declaration": "class", "interface_declaration": "interface",
	"enum_declaration": "enum", "record_declaration": "record", "annotation_type_declaration": "annotation"}

// typeDecl extracts a named member or top-level type: its node, members
// and nested types. owner is the file (top level) or enclosing type node.
func (x *extractor) typeDecl(st *sitter.Node, outer *typeDef, owner graphdb.NodeID) *typeDef {
	name := x.text(st.ChildByFieldName("name"))
	if name == "" {
		return nil
	}
	t := x.typeShape(st, name, outer)
	t.depth = 1
	if outer != nil {
		t.Q, t.Outer, t.depth = outer.Q+"."+name, outer.Q, outer.depth+1
	} else {
		t.Q = join(x.f.scope.Pkg, name)
	}
	m := x.mods(st)
	t.Static = m.static || outer != nil && outer.Kind != "class" || t.Kind != "class"
	t.ID = x.add(graphdb.Node{ID: typeID(t.Q), Kind: graphdb.KindType, SubKind: t.Kind, Name: name, QName: t.Q,
		Loc: x.locName(t.Q), StartLine: sitter.Line(st), EndLine: sitter.EndLine(st), Signature: x.signature(st), Doc: x.doc(st),
		Exported: m.public || outer != nil && outer.Kind == "interface"})
	x.parent(t.ID, owner)
	x.f.scope.Types = append(x.f.scope.Types, t)
	x.annotate(t.ID, outer, m)
	ctx := outer
	if sc := st.ChildByFieldName("superclass"); sc != nil && sc.NamedChildCount() > 0 {
		x.f.uses = append(x.f.uses, typeUse{from: t.ID, kind: graphdb.EdgeInherits, written: t.Super, ctx: ctx, line: sitter.Line(sc)})
	}
	kind := graphdb.EdgeImplements
	if t.Kind == "interface" || t.Kind == "annotation" {
		kind = graphdb.EdgeInherits // an interface extends its superinterfaces
	}
	for _, w := range t.Ifaces {
		x.f.uses = append(x.f.uses, typeUse{from: t.ID, kind: kind, written: w, ctx: ctx, line: sitter.Line(st)})
	}
	x.members(st, t, false)
	return t
}

// typeShape reads a type declaration's kind, supertypes and type
// parameters.
func (x *extractor) typeShape(st *sitter.Node, name string, outer *typeDef) *typeDef {
	t := &typeDef{Kind: kinds[st.Kind()], TParams: x.typeParams(st), Fields: map[string]*fieldDef{}, scope: x.f.scope}
	if t.Kind == "" {
		t.Kind = "class"
	}
	if sc := st.ChildByFieldName("superclass"); sc != nil && sc.NamedChildCount() > 0 {
		t.Super = x.text(sc.NamedChild(0))
	}
	ifs := st.ChildByFieldName("interfaces")
	if t.Kind == "interface" {
		for _, c := range sitter.Children(st) {
			if c.Kind() == "extends_interfaces" {
				ifs = c
			}
		}
	}
	for _, c := range x.typeList(ifs) {
		t.Ifaces = append(t.Ifaces, x.text(c))
	}
	if t.Kind == "annotation" {
		t.Ifaces = append(t.Ifaces, "java.lang.annotation.Annotation")
	}
	return t
}

// member is a member declaration before its name is decided.
type member struct {
	n      *sitter.Node
	m      *methodDef
	mods   modSet
	params []*sitter.Node
}

// members extracts the members of t's body. local: t is a local or
// anonymous class, whose members are no nodes (their code belongs to the
// enclosing method).
func (x *extractor) members(st *sitter.Node, t *typeDef, local bool) {
	body := st.ChildByFieldName("body")
	if st.Kind() == "class_body" {
		body = st
	}
	if body == nil {
		return
	}
	var decls []*sitter.Node
	x.sib.Index(body)
	for _, c := range sitter.Children(body) {
		if c.Kind() == "enum_body_declarations" {
			x.sib.Index(c)
			decls = append(decls, sitter.Children(c)...)
		} else {
			decls = append(decls, c)
		}
	}
	if t.Kind == "record" {
		x.recordComponents(st, t, local)
	}
	var ms []member
	count := map[string]int{}
	for _, c := range decls {
		if jm, ok := x.method(c, t); ok {
			ms = append(ms, jm)
			count[jm.m.Name]++
		}
	}
	for _, jm := range ms {
		x.addMethod(jm, t, local, count[jm.m.Name] > 1)
	}
	if count["<init>"] == 0 && (t.Kind == "class" || t.Kind == "enum" || t.Kind == "record") && !t.anon {
		x.f.bodies = append(x.f.bodies, codeBody{from: t.ID, cls: t, n: st, implicit: true})
	}
	if t.Kind == "record" {
		x.recordAccessors(st, t)
	}
	for _, c := range decls {
		switch c.Kind() {
		case "field_declaration", "constant_declaration":
			x.fields(c, t, local)
		case "enum_constant":
			x.enumConstant(c, t, local)
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			switch {
			case local:
			case t.depth >= maxTypeNesting:
				x.tooDeep(c, typeTooDeep)
			default:
				x.typeDecl(c, t, t.ID)
			}
		case "static_initializer", "block":
			if !local {
				b := c
				if c.Kind() == "static_initializer" && c.NamedChildCount() > 0 {
					b = c.NamedChild(0)
				}
				x.f.bodies = append(x.f.bodies, codeBody{from: t.ID, cls: t, n: b})
			}
		}
	}
}

// method reads a method, constructor or annotation element declaration.
func (x *extractor) method(c *sitter.Node, t *typeDef) (member, bool) {
	jm := member{n: c, mods: x.mods(c)}
	switch c.Kind() {
	case "method_declaration", "annotation_type_element_declaration":
		jm.m = &methodDef{Name: x.text(c.ChildByFieldName("name")), Ret: x.text(c.ChildByFieldName("type"))}
		if d := c.ChildByFieldName("dimensions"); d != nil {
			jm.m.Ret += x.text(d)
		}
	case "constructor_declaration", "compact_constructor_declaration":
		jm.m = &methodDef{Name: "<init>"}
	default:
		return jm, false
	}
	jm.m.TParams = x.typeParams(c)
	jm.m.Static = jm.mods.static
	jm.m.Abstract = jm.mods.abstract || t.Kind == "interface" && c.ChildByFieldName("body") == nil
	if c.Kind() == "compact_constructor_declaration" {
		if ps := t.recordParams; ps != nil {
			jm.m.Params = ps
		}
		return jm, true
	}
	if ps := c.ChildByFieldName("parameters"); ps != nil {
		for _, p := range sitter.Children(ps) {
			switch p.Kind() {
			case "formal_parameter":
				w := x.text(p.ChildByFieldName("type"))
				if d := p.ChildByFieldName("dimensions"); d != nil {
					w += x.text(d)
				}
				jm.m.Params = append(jm.m.Params, w)
				jm.params = append(jm.params, p)
			case "spread_parameter":
				for _, pc := range sitter.Children(p) {
					if pc.Kind() != "modifiers" && pc.Kind() != "variable_declarator" {
						jm.m.Params = append(jm.m.Params, x.text(pc)+"...")
						break
					}
				}
				jm.m.Varargs = true
				jm.params = append(jm.params, p)
			}
		}
	}
	return jm, jm.m.Name != ""
}

// paramKey is the overload suffix of a method: its parameter types,
// erased to simple names ("(int,String[])").
func paramKey(params []string) string {
	parts := make([]string, len(params))
	for i, p := range params {
		n, dims := erase(p)
		parts[i] = simpleName(n) + strings.Repeat("[]", dims)
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// addMethod makes a method's node (unless local) and records it in t.
// Overloaded methods (several of one name in t, constructors included)
// carry their parameter types in QName and Loc: C.m(int,String).
func (x *extractor) addMethod(jm member, t *typeDef, local, overloaded bool) {
	m := jm.m
	t.Methods = append(t.Methods, m)
	if local {
		if body := jm.n.ChildByFieldName("body"); body != nil {
			x.f.bodies = append(x.f.bodies, codeBody{cls: t, m: m, decl: jm.n, n: body, ctor: m.Name == "<init>"})
		}
		return
	}
	name, sub := m.Name, "method"
	if name == "<init>" {
		name, sub = simpleName(t.Q), "constructor"
	}
	q := t.Q + "." + name
	if overloaded {
		q += paramKey(m.Params)
	}
	m.ID = x.add(graphdb.Node{ID: typeID(q), Kind: graphdb.KindMember, SubKind: sub, Name: name, QName: q,
		Loc: x.locName(q), StartLine: sitter.Line(jm.n), EndLine: sitter.EndLine(jm.n), Signature: x.signature(jm.n), Doc: x.doc(jm.n),
		Exported: jm.mods.public || t.Kind == "interface" && !jm.mods.private})
	x.parent(m.ID, t.ID)
	x.annotate(m.ID, t, jm.mods)
	if m.Ret != "" {
		x.f.uses = append(x.f.uses, typeUse{from: m.ID, kind: graphdb.EdgeReturns, written: m.Ret, ctx: t, line: sitter.Line(jm.n)})
	}
	for i, p := range jm.params {
		x.f.uses = append(x.f.uses, typeUse{from: m.ID, kind: graphdb.EdgeParamOf, written: m.Params[i], ctx: t, line: sitter.Line(p), reverse: true})
	}
	if body := jm.n.ChildByFieldName("body"); body != nil {
		x.f.bodies = append(x.f.bodies, codeBody{from: m.ID, cls: t, m: m, decl: jm.n, n: body, ctor: m.Name == "<init>"})
	}
}

// fields extracts a field declaration's variables.
func (x *extractor) fields(c *sitter.Node, t *typeDef, local bool) {
	mods := x.mods(c)
	typ := x.text(c.ChildByFieldName("type"))
	for _, d := range sitter.FieldChildren(c, "declarator") {
		name := x.text(d.ChildByFieldName("name"))
		w := typ
		if dims := d.ChildByFieldName("dimensions"); dims != nil {
			w += x.text(dims)
		}
		f := &fieldDef{Type: w, Static: mods.static || t.Kind == "interface"}
		t.Fields[name] = f
		from := graphdb.NodeID("")
		if !local {
			q := t.Q + "." + name
			f.ID = x.add(graphdb.Node{ID: typeID(q), Kind: graphdb.KindMember, SubKind: "field", Name: name, QName: q,
				Loc: x.locName(q), StartLine: sitter.Line(d), EndLine: sitter.EndLine(d), Signature: strings.Join(strings.Fields(typ+" "+name), " "),
				Doc: x.doc(c), Exported: mods.public || t.Kind == "interface"})
			x.parent(f.ID, t.ID)
			x.annotate(f.ID, t, mods)
			from = f.ID
		}
		if v := d.ChildByFieldName("value"); v != nil {
			x.f.bodies = append(x.f.bodies, codeBody{from: from, cls: t, n: v})
		}
	}
}

// enumConstant extracts an enum constant: a static field of the enum whose
// arguments call the enum's constructor.
func (x *extractor) enumConstant(c *sitter.Node, t *typeDef, local bool) {
	name := x.text(c.ChildByFieldName("name"))
	f := &fieldDef{Type: simpleName(t.Q), Static: true}
	t.Fields[name] = f
	if local {
		return
	}
	q := t.Q + "." + name
	f.ID = x.add(graphdb.Node{ID: typeID(q), Kind: graphdb.KindMember, SubKind: "field", Name: name, QName: q,
		Loc: x.locName(q), StartLine: sitter.Line(c), EndLine: sitter.EndLine(c), Signature: name, Doc: x.doc(c), Exported: true})
	x.parent(f.ID, t.ID)
	x.f.bodies = append(x.f.bodies, codeBody{from: f.ID, cls: t, n: c})
}

// recordComponents makes a record's components fields and accessors.
func (x *extractor) recordComponents(st *sitter.Node, t *typeDef, local bool) {
	ps := st.ChildByFieldName("parameters")
	if ps == nil {
		return
	}
	for _, p := range sitter.Children(ps) {
		if p.Kind() != "formal_parameter" {
			continue
		}
		name, typ := x.text(p.ChildByFieldName("name")), x.text(p.ChildByFieldName("type"))
		t.recordParams = append(t.recordParams, typ)
		f := &fieldDef{Type: typ}
		t.Fields[name] = f
		if !local {
			q := t.Q + "." + name
			f.ID = x.add(graphdb.Node{ID: typeID(q), Kind: graphdb.KindMember, SubKind: "field", Name: name, QName: q,
				Loc: x.locName(q), StartLine: sitter.Line(p), EndLine: sitter.EndLine(p), Signature: typ + " " + name})
			x.parent(f.ID, t.ID)
		}
	}
}

// recordAccessors adds the implicit accessors of a record's components
// (no nodes: they have no declaration) and its canonical constructor when
// none is declared.
func (x *extractor) recordAccessors(st *sitter.Node, t *typeDef) {
	has := map[string]bool{}
	for _, m := range t.Methods {
		if len(m.Params) == 0 {
			has[m.Name] = true
		}
	}
	ps := st.ChildByFieldName("parameters")
	if ps == nil {
		return
	}
	for _, p := range sitter.Children(ps) {
		name := x.text(p.ChildByFieldName("name"))
		if p.Kind() == "formal_parameter" && !has[name] {
			t.Methods = append(t.Methods, &methodDef{Name: name, Ret: x.text(p.ChildByFieldName("type"))})
		}
	}
}
