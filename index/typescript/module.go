//go:build cgo

package typescript

import (
	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// importStmt binds the names of an import statement (import x = require
// included).
func (x *extractor) importStmt(st *sitter.Node) {
	spec := x.spec(st.ChildByFieldName("source"))
	s := x.f.scope
	for _, c := range sitter.Children(st) {
		switch c.Kind() {
		case "import_clause":
			for _, b := range sitter.Children(c) {
				switch b.Kind() {
				case "identifier":
					s.Imports[x.text(b)] = imp{Spec: spec, Name: "default"}
				case "namespace_import":
					if b.NamedChildCount() > 0 {
						s.Imports[x.text(b.NamedChild(0))] = imp{Spec: spec, Name: "*"}
					}
				case "named_imports":
					for _, sp := range sitter.Children(b) {
						if sp.Kind() != "import_specifier" {
							continue
						}
						name := x.text(sp.ChildByFieldName("name"))
						local := name
						if a := sp.ChildByFieldName("alias"); a != nil {
							local = x.text(a)
						}
						s.Imports[local] = imp{Spec: spec, Name: name}
					}
				}
			}
		case "import_require_clause": // import x = require("m")
			if c.NamedChildCount() >= 2 {
				spec = x.spec(c.NamedChild(1))
				s.Imports[x.text(c.NamedChild(0))] = imp{Spec: spec, Name: "*"}
			}
		}
	}
	x.useSpec(spec, st)
}

// exportStmt handles export declarations, export lists, re-exports,
// export default and export =.
func (x *extractor) exportStmt(st *sitter.Node, mid, fid graphdb.NodeID) {
	s := x.f.scope
	src := st.ChildByFieldName("source")
	spec := x.spec(src)
	x.useSpec(spec, st)
	var decs []*sitter.Node
	isDefault, isAssign := false, false
	for _, c := range sitter.AllChildren(st) {
		switch {
		case c.Kind() == "default":
			isDefault = true
		case c.Kind() == "=":
			isAssign = true
		case c.Kind() == "decorator":
			decs = append(decs, c)
		}
	}
	if d := st.ChildByFieldName("declaration"); d != nil {
		if d.Kind() == "lexical_declaration" || d.Kind() == "variable_declaration" {
			x.varDecl(d, st, mid, fid, true)
			return
		}
		var name string
		if d.Kind() == "class_declaration" || d.Kind() == "abstract_class_declaration" {
			if name = x.text(d.ChildByFieldName("name")); name != "" {
				x.class(d, st, name, decs, fid)
			}
		} else {
			name = x.decl(d, st, decs, fid)
		}
		if d.Kind() == "function_signature" {
			name = x.text(d.ChildByFieldName("name"))
			x.top(d, mid, fid)
		}
		if d.Kind() == "ambient_declaration" {
			for _, c := range sitter.Children(d) {
				x.exportStmtDecl(c, st, mid, fid)
			}
		}
		if name != "" {
			s.Exports[name] = name
			if isDefault {
				s.Exports["default"] = name
			}
		}
		return
	}
	if v := st.ChildByFieldName("value"); v != nil || isAssign {
		if v == nil {
			for _, c := range sitter.Children(st) {
				if c.Kind() != "comment" {
					v = c
				}
			}
		}
		x.exportValue(v, st, mid, fid, isAssign, decs)
		return
	}
	for _, c := range sitter.Children(st) {
		switch c.Kind() {
		case "export_clause":
			for _, sp := range sitter.Children(c) {
				if sp.Kind() != "export_specifier" {
					continue
				}
				name := x.text(sp.ChildByFieldName("name"))
				as := name
				if a := sp.ChildByFieldName("alias"); a != nil {
					as = x.text(a)
				}
				if spec != "" {
					s.ReExports[as] = imp{Spec: spec, Name: name}
				} else {
					s.Exports[as] = name
				}
			}
			return
		case "namespace_export":
			if c.NamedChildCount() > 0 && spec != "" {
				s.ReExports[x.text(c.NamedChild(0))] = imp{Spec: spec, Name: "*"}
			}
			return
		}
	}
	if spec != "" {
		s.Stars = append(s.Stars, spec)
	}
}

// exportStmtDecl exports a declaration under `export declare`.
func (x *extractor) exportStmtDecl(d, st *sitter.Node, mid, fid graphdb.NodeID) {
	x.top(d, mid, fid)
	if name := x.text(d.ChildByFieldName("name")); name != "" {
		x.f.scope.Exports[name] = name
	}
}

// exportValue handles `export default <expr>` and `export = <expr>`.
func (x *extractor) exportValue(v, st *sitter.Node, mid, fid graphdb.NodeID, assign bool, decs []*sitter.Node) {
	s := x.f.scope
	bind := func(local string) {
		if assign {
			s.Whole = local
		} else {
			s.Exports["default"] = local
		}
	}
	switch v.Kind() {
	case "identifier":
		bind(x.text(v))
	case "class", "class_declaration":
		name := x.text(v.ChildByFieldName("name"))
		if name == "" {
			name = "default"
		}
		x.class(v, st, name, decs, fid)
		bind(name)
	case "function_expression", "function", "arrow_function", "function_declaration", "generator_function", "generator_function_declaration":
		name := x.text(v.ChildByFieldName("name"))
		if name == "" {
			name = "default"
		}
		x.function(v, st, name, fid)
		bind(name)
	default:
		x.refs(v, mid, "", nil)
	}
}

// objectValue returns the object literal v is (`as const` and
// `satisfies T` looked through), nil for anything else.
func objectValue(v *sitter.Node) *sitter.Node {
	for v != nil {
		switch v.Kind() {
		case "object":
			return v
		case "as_expression", "satisfies_expression", "parenthesized_expression":
			v = v.NamedChild(0)
		default:
			return nil
		}
	}
	return nil
}

// isFuncValue reports whether v is a function or arrow function.
func isFuncValue(v *sitter.Node) bool {
	if v == nil {
		return false
	}
	switch v.Kind() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// varDecl handles a top-level const/let/var: functions, classes and
// requires bound to names, and typed variables.
func (x *extractor) varDecl(st, outer *sitter.Node, mid, fid graphdb.NodeID, exported bool) {
	s := x.f.scope
	for _, vd := range sitter.Children(st) {
		if vd.Kind() != "variable_declarator" {
			continue
		}
		nameNode, v := vd.ChildByFieldName("name"), vd.ChildByFieldName("value")
		if nameNode != nil && nameNode.Kind() == "object_pattern" {
			if spec := x.requireSpec(v); spec != "" { // const { a, b: c } = require("m")
				x.useSpec(spec, vd)
				for _, p := range sitter.Children(nameNode) {
					switch p.Kind() {
					case "shorthand_property_identifier_pattern":
						s.Imports[x.text(p)] = imp{Spec: spec, Name: x.text(p)}
					case "pair_pattern":
						s.Imports[x.text(p.ChildByFieldName("value"))] = imp{Spec: spec, Name: x.text(p.ChildByFieldName("key"))}
					}
				}
				continue
			}
		}
		if nameNode == nil || nameNode.Kind() != "identifier" {
			x.refs(v, mid, "", nil)
			continue
		}
		name := x.text(nameNode)
		if exported {
			s.Exports[name] = name
		}
		v = x.exportChain(v, name)
		switch {
		case isFuncValue(v):
			x.function(v, outer, name, fid)
			continue
		case v != nil && v.Kind() == "class":
			x.class(v, outer, name, nil, fid)
			continue
		}
		if spec := x.requireSpec(v); spec != "" {
			x.useSpec(spec, vd)
			s.Imports[name] = imp{Spec: spec, Name: "*"}
			continue
		}
		if obj := objectValue(v); obj != nil && vd.ChildByFieldName("type") == nil {
			d := x.objectLiteral(obj, outer, name, mid, fid)
			if _, ok := s.Decls[name]; !ok {
				s.Decls[name] = d
			}
			continue
		}
		if v != nil && v.Kind() == "member_expression" { // const f = require("m").f
			if spec := x.requireSpec(v.ChildByFieldName("object")); spec != "" {
				x.useSpec(spec, vd)
				s.Imports[name] = imp{Spec: spec, Name: x.text(v.ChildByFieldName("property"))}
				continue
			}
		}
		t := x.typeName(vd.ChildByFieldName("type"))
		if t == "" {
			t = x.docType(vd)
		}
		if t == "" {
			t = x.valueType(v)
		}
		if _, ok := s.Decls[name]; !ok {
			s.Decls[name] = &scopeDecl{Kind: "var", Type: t}
		}
		x.refs(v, mid, "", nil)
	}
}

// cjsExport handles CommonJS exports: module.exports = x | {a, b: c} |
// function/class, and exports.a = / module.exports.a = function or name.
// It returns false for any other assignment.
func (x *extractor) cjsExport(as, st *sitter.Node, mid, fid graphdb.NodeID) bool {
	s := x.f.scope
	left, right := x.dotted(as.ChildByFieldName("left")), as.ChildByFieldName("right")
	if right == nil {
		return false
	}
	switch left {
	case "module.exports":
		switch {
		case right.Kind() == "identifier":
			s.Whole = x.text(right)
		case right.Kind() == "object":
			for _, p := range sitter.Children(right) {
				switch p.Kind() {
				case "shorthand_property_identifier":
					s.Exports[x.text(p)] = x.text(p)
				case "pair":
					key, val := x.memberNameOfKey(p.ChildByFieldName("key")), p.ChildByFieldName("value")
					switch {
					case key == "":
					case val != nil && val.Kind() == "identifier":
						s.Exports[key] = x.text(val)
					case isFuncValue(val):
						x.function(val, p, key, fid)
						s.Exports[key] = key
					default:
						x.refs(val, mid, "", nil)
					}
				case "method_definition":
					if key := x.memberName(p); key != "" {
						x.function(p, p, key, fid)
						s.Exports[key] = key
					}
				default:
					x.refs(p, mid, "", nil)
				}
			}
		case isFuncValue(right) || right.Kind() == "class":
			x.exportValue(right, st, mid, fid, true, nil)
		default:
			if spec := x.requireSpec(right); spec != "" {
				x.useSpec(spec, st)
				s.Stars = append(s.Stars, spec)
				return true
			}
			x.refs(right, mid, "", nil)
		}
		return true
	}
	var key string
	switch {
	case len(left) > 8 && left[:8] == "exports." && !containsDot(left[8:]):
		key = left[8:]
	case len(left) > 15 && left[:15] == "module.exports." && !containsDot(left[15:]):
		key = left[15:]
	default:
		return false
	}
	switch {
	case right.Kind() == "identifier":
		s.Exports[key] = x.text(right)
	case isFuncValue(right):
		x.function(right, st, key, fid)
		s.Exports[key] = key
	case right.Kind() == "class":
		x.class(right, st, key, nil, fid)
		s.Exports[key] = key
	default:
		x.refs(right, mid, "", nil)
	}
	return true
}

func (x *extractor) memberNameOfKey(k *sitter.Node) string {
	if k == nil {
		return ""
	}
	switch k.Kind() {
	case "property_identifier", "identifier":
		return x.text(k)
	case "string":
		return x.spec(k)
	}
	return ""
}

func containsDot(s string) bool {
	for i := range len(s) {
		if s[i] == '.' {
			return true
		}
	}
	return false
}
