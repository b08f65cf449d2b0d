//go:build cgo

package rust

import (
	"fmt"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/sitter"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
)

// fieldIDs holds the grammar's field ids by name: looking a field up by
// name allocates a C string on every call.
var fieldIDs = func() map[string]uint16 {
	lang := sitter.NewLanguage(tsrust.Language())
	m := map[string]uint16{}
	for i := uint16(1); i <= uint16(lang.FieldCount()); i++ {
		m[lang.FieldNameForId(i)] = i
	}
	return m
}()

// fieldChild is n's child in the named field, nil when absent.
func fieldChild(n *sitter.Node, name string) *sitter.Node {
	id, ok := fieldIDs[name]
	if !ok {
		panic("tree-sitter rust: no field " + name) // a typo in this package
	}
	return n.ChildByFieldId(id)
}

// generics maps the generic parameters of c (type_parameters and where
// clause) to their first trait bound as a type text ("" when unbounded),
// on top of outer's.
func (x *extractor) generics(c *sitter.Node, outer map[string]string) map[string]string {
	tp := fieldChild(c, "type_parameters")
	var where *sitter.Node
	for _, ch := range sitter.Children(c) {
		if ch.Kind() == "where_clause" {
			where = ch
		}
	}
	if tp == nil && where == nil {
		return outer
	}
	g := map[string]string{}
	for k, v := range outer {
		g[k] = v
	}
	bound := func(b *sitter.Node) string {
		if b == nil {
			return ""
		}
		for _, t := range sitter.Children(b) {
			if t.Kind() != "lifetime" {
				return x.typeText(t, nil)
			}
		}
		return ""
	}
	if tp != nil {
		for _, p := range sitter.Children(tp) {
			if p.Kind() == "type_parameter" {
				name := x.text(fieldChild(p, "name"))
				if g[name] = bound(fieldChild(p, "bounds")); g[name] == "" {
					g[name] = "$" + name // unbounded: the receiver's type argument, when evident (types.go: subst)
				}
			}
		}
	}
	if where != nil {
		for _, p := range sitter.Children(where) {
			if l := fieldChild(p, "left"); l != nil && l.Kind() == "type_identifier" {
				if b := bound(fieldChild(p, "bounds")); b != "" {
					g[x.text(l)] = b
				}
			}
		}
	}
	return g
}

// typeText renders a type as the resolver reads it: a path with its
// generic arguments ("a::B<C,D>"), references, pointers, dyn and impl
// dropped ("&mut dyn Tr" is "Tr"), generic parameters replaced by their
// bound; "" for what has no path (tuples, arrays, fn types, unbounded
// generic parameters).
func (x *extractor) typeText(t *sitter.Node, gen map[string]string) string {
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case "type_identifier", "identifier":
		name := x.text(t)
		if b, ok := gen[name]; ok {
			return b
		}
		return name
	case "primitive_type", "self":
		return x.text(t)
	case "scoped_type_identifier", "scoped_identifier":
		return squeeze(x.text(t))
	case "generic_type":
		base := x.typeText(fieldChild(t, "type"), gen)
		var args []string
		if ta := fieldChild(t, "type_arguments"); ta != nil {
			for _, a := range sitter.Children(ta) {
				if a.Kind() != "lifetime" && a.Kind() != "type_binding" && a.Kind() != "trait_bounds" {
					args = append(args, x.typeText(a, gen))
				}
			}
		}
		if base == "" || len(args) == 0 {
			return base
		}
		return base + "<" + strings.Join(args, ",") + ">"
	case "reference_type", "pointer_type":
		return x.typeText(fieldChild(t, "type"), gen)
	case "dynamic_type", "abstract_type":
		return x.typeText(fieldChild(t, "trait"), gen)
	case "bounded_type", "trait_bounds":
		for _, c := range sitter.Children(t) {
			if c.Kind() != "lifetime" {
				return x.typeText(c, gen)
			}
		}
	case "function_type": // a closure's type: FnMut(Snapshot) -> R
		var ps []string
		if pn := fieldChild(t, "parameters"); pn != nil {
			for _, p := range sitter.Children(pn) {
				if p.Kind() == "parameter" {
					p = fieldChild(p, "type")
				}
				ps = append(ps, x.typeText(p, gen))
			}
		}
		return "fn(" + strings.Join(ps, ",") + ")"
	case "array_type":
		if e := x.typeText(fieldChild(t, "element"), gen); e != "" {
			return "[]<" + e + ">"
		}
	}
	return ""
}

// params returns the types of a function's parameters after self, and
// whether it takes self.
func (x *extractor) params(c *sitter.Node, gen map[string]string) (types []string, self bool) {
	ps := fieldChild(c, "parameters")
	if ps == nil {
		return nil, false
	}
	for _, p := range sitter.Children(ps) {
		switch p.Kind() {
		case "self_parameter":
			self = true
		case "parameter":
			if pat := fieldChild(p, "pattern"); pat != nil && pat.Kind() == "self" {
				self = true
				continue
			}
			types = append(types, x.typeText(fieldChild(p, "type"), gen))
		}
	}
	return types, self
}

// function extracts a free function.
func (x *extractor) function(c *sitter.Node, ms *modScope, parent graphdb.NodeID, test bool, dec decoration) {
	name := x.text(fieldChild(c, "name"))
	if name == "" {
		return
	}
	gen := x.generics(c, nil)
	q := ms.Path + "::" + name
	id := x.add(graphdb.Node{ID: graphdb.NodeID("rust:" + q), Kind: graphdb.KindFunction, SubKind: "function", Name: name, QName: q,
		Loc: x.f.rel + ":" + name, StartLine: x.line(c), EndLine: x.endLine(c), Signature: x.signature(c), Doc: dec.doc,
		Exported: x.exported(c), Attrs: attrsOf(dec)}, test)
	x.parent(id, parent)
	ps, _ := x.params(c, gen)
	it := &item{Name: name, Kind: "fn", ID: string(id), Params: ps, Ret: x.typeText(fieldChild(c, "return_type"), gen)}
	ms.Items = append(ms.Items, it)
	x.signatureUses(c, id, ms.Path, "", gen)
	x.body(c, id, ms.Path, "", gen)
}

// signatureUses records the returns and param_of edges of a function.
func (x *extractor) signatureUses(c *sitter.Node, id graphdb.NodeID, mod, self string, gen map[string]string) {
	line := x.line(c)
	if r := x.typeText(fieldChild(c, "return_type"), gen); r != "" {
		x.f.uses = append(x.f.uses, typeUse{from: id, kind: graphdb.EdgeReturns, text: r, mod: mod, self: self, line: line})
	}
	ps, _ := x.params(c, gen)
	for _, p := range ps {
		if p != "" {
			x.f.uses = append(x.f.uses, typeUse{from: id, kind: graphdb.EdgeParamOf, text: p, mod: mod, self: self, line: line, reverse: true})
		}
	}
}

// body queues a function's code for resolution.
func (x *extractor) body(c *sitter.Node, id graphdb.NodeID, mod, self string, gen map[string]string) {
	if b := fieldChild(c, "body"); b != nil {
		x.f.bodies = append(x.f.bodies, codeBody{src: x.src, lineOff: x.lineOff, from: id, mod: mod, self: self, gen: gen, params: fieldChild(c, "parameters"), body: b})
	}
}

var typeSubKinds = map[string]string{"struct_item": "struct", "union_item": "union", "enum_item": "enum", "trait_item": "interface", "type_item": "alias"}

// typeItem extracts a struct, union, enum, trait or type alias.
func (x *extractor) typeItem(c *sitter.Node, ms *modScope, parent graphdb.NodeID, test bool, dec decoration) {
	name := x.text(fieldChild(c, "name"))
	if name == "" {
		return
	}
	q := ms.Path + "::" + name
	id := x.add(graphdb.Node{ID: graphdb.NodeID("rust:" + q), Kind: graphdb.KindType, SubKind: typeSubKinds[c.Kind()], Name: name, QName: q,
		Loc: x.f.rel + ":" + name, StartLine: x.line(c), EndLine: x.endLine(c), Signature: x.signature(c), Doc: dec.doc,
		Exported: x.exported(c), Attrs: attrsOf(dec)}, test)
	x.parent(id, parent)
	gen := x.generics(c, nil)
	it := &item{Name: name, Kind: strings.TrimSuffix(c.Kind(), "_item"), ID: string(id)}
	if tp := fieldChild(c, "type_parameters"); tp != nil {
		for _, p := range sitter.Children(tp) {
			if p.Kind() == "type_parameter" {
				it.Generics = append(it.Generics, x.text(fieldChild(p, "name")))
			}
		}
	}
	ms.Items = append(ms.Items, it)
	for _, d := range dec.derives() {
		x.f.uses = append(x.f.uses, typeUse{from: id, kind: graphdb.EdgeDecoratedBy, text: d, mod: ms.Path, line: x.line(c)})
	}
	body := fieldChild(c, "body")
	switch c.Kind() {
	case "type_item":
		it.Target = x.typeText(fieldChild(c, "type"), gen)
	case "struct_item", "union_item":
		x.fields(body, it, id, q, gen, test)
	case "enum_item":
		if body != nil {
			for _, v := range sitter.Children(body) {
				if v.Kind() != "enum_variant" {
					continue
				}
				vname := x.text(fieldChild(v, "name"))
				it.Variants = append(it.Variants, vname)
				if b := fieldChild(v, "body"); b != nil && b.Kind() == "ordered_field_declaration_list" {
					var fs []string
					for _, ft := range sitter.FieldChildren(b, "type") {
						fs = append(fs, x.typeText(ft, gen))
					}
					if it.VFields == nil {
						it.VFields = map[string][]string{}
					}
					it.VFields[vname] = fs
				}
			}
		}
	case "trait_item":
		if b := fieldChild(c, "bounds"); b != nil {
			for _, s := range sitter.Children(b) {
				if t := x.typeText(s, gen); t != "" {
					it.Supers = append(it.Supers, t)
					x.f.uses = append(x.f.uses, typeUse{from: id, kind: graphdb.EdgeInherits, text: t, mod: ms.Path, line: x.line(c)})
				}
			}
		}
		if body != nil {
			it.Methods = x.methods(body, ms.Path, name, q, name, id, gen, test, true)
		}
	}
}

// fields extracts a struct's fields as member nodes and types.
func (x *extractor) fields(body *sitter.Node, it *item, id graphdb.NodeID, q string, gen map[string]string, test bool) {
	if body == nil {
		return
	}
	it.Fields = map[string]string{}
	i := 0
	for _, fd := range sitter.Children(body) {
		switch fd.Kind() {
		case "field_declaration":
			name := x.text(fieldChild(fd, "name"))
			it.Fields[name] = x.typeText(fieldChild(fd, "type"), gen)
			fid := x.add(graphdb.Node{ID: graphdb.NodeID("rust:" + q + "." + name), Kind: graphdb.KindMember, SubKind: "field", Name: name, QName: q + "." + name,
				Loc: x.f.rel + ":" + lastSeg(q) + "." + name, StartLine: x.line(fd), EndLine: x.endLine(fd), Signature: squeezeSpace(x.text(fd)), Exported: x.exported(fd)}, test)
			x.parent(fid, id)
		case "attribute_item", "visibility_modifier", "line_comment", "block_comment":
		default: // a tuple struct's field types
			if t := x.typeText(fd, gen); t != "" || fd.IsNamed() {
				it.Fields[fmt.Sprint(i)] = t
				i++
			}
		}
	}
}

func squeezeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// methods extracts the functions of an impl block or trait (body: its
// declaration list) as member nodes named owner.m; idPrefix is their ids'
// qualified prefix.
func (x *extractor) methods(body *sitter.Node, mod, self, idPrefix, owner string, parent graphdb.NodeID, gen map[string]string, test, trait bool) []*fnSig {
	var out []*fnSig
	var dec decoration
	for _, c := range sitter.Children(body) {
		switch c.Kind() {
		case "attribute_item":
			dec.attrs = append(dec.attrs, strings.Join(strings.Fields(x.text(sitter.Children(c)[0])), " "))
			continue
		case "line_comment", "block_comment":
			if s := x.text(c); dec.doc == "" && (strings.HasPrefix(s, "///") || strings.HasPrefix(s, "/**")) {
				dec.doc = strings.TrimSpace(strings.TrimLeft(strings.TrimSuffix(s, "*/"), "/*!"))
			}
			continue
		case "function_item", "function_signature_item":
		case "macro_invocation":
			x.itemMacro(c, func(root *sitter.Node) {
				out = append(out, x.methods(root, mod, self, idPrefix, owner, parent, gen, test, trait)...)
			})
			dec = decoration{}
			continue
		default:
			dec = decoration{}
			continue
		}
		name := x.text(fieldChild(c, "name"))
		g := x.generics(c, gen)
		q := idPrefix + "::" + name
		id := x.add(graphdb.Node{ID: graphdb.NodeID("rust:" + q), Kind: graphdb.KindMember, SubKind: "method", Name: name, QName: q,
			Loc: x.f.rel + ":" + owner + "." + name, StartLine: x.line(c), EndLine: x.endLine(c), Signature: x.signature(c), Doc: dec.doc,
			Exported: trait || x.exported(c), Attrs: attrsOf(dec)}, test || dec.test())
		if parent != "" {
			x.parent(id, parent)
		}
		ps, takesSelf := x.params(c, g)
		out = append(out, &fnSig{Name: name, ID: string(id), Params: ps, Ret: x.typeText(fieldChild(c, "return_type"), g), Self: takesSelf, Body: trait && fieldChild(c, "body") != nil})
		x.signatureUses(c, id, mod, self, g)
		x.body(c, id, mod, self, g)
		dec = decoration{}
	}
	return out
}

// implItem extracts an impl block: its methods are named after the
// Self type as written (Type::m), those of a trait impl
// <Type as Trait>::m; their parent and the implements edge are resolved
// in pass two.
func (x *extractor) implItem(c *sitter.Node, ms *modScope, test bool) {
	gen := x.generics(c, nil)
	selfN, traitN := fieldChild(c, "type"), fieldChild(c, "trait")
	d := &implDecl{Self: x.typeText(selfN, gen), Trait: x.typeText(traitN, gen)}
	selfName := baseName(x.typeText(selfN, nil))
	prefix := ms.Path + "::" + selfName
	if traitN != nil {
		prefix = ms.Path + "::<" + selfName + " as " + strings.ReplaceAll(x.typeText(traitN, nil), ",", ", ") + ">"
	}
	body := fieldChild(c, "body")
	if body == nil {
		return
	}
	for _, it := range sitter.Children(body) {
		if it.Kind() == "type_item" && x.text(fieldChild(it, "name")) == "Target" {
			d.Target = x.typeText(fieldChild(it, "type"), nil)
		}
	}
	n := len(x.f.res.Nodes)
	d.Methods = x.methods(body, ms.Path, d.Self, prefix, selfName, "", gen, test, traitN != nil)
	site := implSite{decl: d, mod: ms.Path, line: x.line(c)}
	for _, nd := range x.f.res.Nodes[n:] {
		if nd.SubKind == "method" {
			site.methods = append(site.methods, nd.ID)
		}
	}
	x.f.impls = append(x.f.impls, site)
	ms.Impls = append(ms.Impls, d)
}

// baseName is the last segment of a type text without its generic
// arguments ("foo::Bar<T>" is "Bar"), "_" for a type without a path.
func baseName(t string) string {
	if i := strings.IndexByte(t, '<'); i >= 0 {
		t = t[:i]
	}
	if t == "" {
		return "_"
	}
	return lastSeg(t)
}
