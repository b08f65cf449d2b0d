//go:build cgo

package rust

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// exprType is the type of an expression when evident: locals and
// parameters of a declared or evident type, self, fields, the return
// types of the functions and methods called, struct literals, &x, *x,
// x?, x.await, casts, constants and statics.
func (w *walker) exprType(n *sitter.Node) ty {
	if n == nil || w.l.depth > maxUseDepth {
		return ty{}
	}
	switch n.Kind() {
	case "identifier":
		name := w.x.text(n)
		if t, ok := w.locals[name]; ok {
			return t
		}
		return w.entType(w.l.resolvePath(w.b.mod, []string{name}, w.b.self))
	case "scoped_identifier":
		return w.entType(w.pathEnt(n))
	case "self":
		return w.selfTy
	case "field_expression":
		return w.fieldType(w.exprType(fieldChild(n, "value")), w.x.text(fieldChild(n, "field")))
	case "call_expression":
		return w.callType(n)
	case "struct_expression":
		return w.l.tyOf(w.b.mod, w.x.typeText(fieldChild(n, "name"), w.b.gen), w.b.self)
	case "reference_expression":
		return w.exprType(fieldChild(n, "value"))
	case "unary_expression", "parenthesized_expression", "await_expression":
		if cs := sitter.Children(n); len(cs) > 0 {
			return w.exprType(cs[0])
		}
	case "try_expression":
		if cs := sitter.Children(n); len(cs) > 0 {
			if t := w.exprType(cs[0]); t.path == "ext:Option" || t.path == "ext:Result" {
				return t.arg0()
			}
		}
	case "index_expression":
		if cs := sitter.Children(n); len(cs) > 0 {
			return elemType(w.exprType(cs[0]))
		}
	case "type_cast_expression":
		return w.l.tyOf(w.b.mod, w.x.typeText(fieldChild(n, "type"), w.b.gen), w.b.self)
	case "match_expression":
		if body := fieldChild(n, "body"); body != nil {
			for _, arm := range sitter.Children(body) {
				if arm.Kind() != "match_arm" {
					continue
				}
				if t := w.exprType(fieldChild(arm, "value")); t.known() {
					return t
				}
			}
		}
	case "block":
		if cs := sitter.Children(n); len(cs) > 0 {
			return w.exprType(cs[len(cs)-1])
		}
	case "string_literal", "raw_string_literal":
		return ty{path: "ext:str"}
	case "integer_literal", "float_literal", "boolean_literal", "char_literal":
		return ty{path: "ext:" + strings.TrimSuffix(n.Kind(), "_literal")}
	}
	return ty{}
}

// entType is the type of a value a path names: a constant's or static's
// declared type, a unit struct, an enum variant's enum.
func (w *walker) entType(e ent) ty {
	switch e.kind {
	case "const", "static":
		return w.l.tyOf(e.it.mod, e.it.Target, "")
	case "struct", "variant":
		return ty{path: e.path}
	}
	return ty{}
}

// fieldType is the type of field name of a value of type t.
func (w *walker) fieldType(t ty, name string) ty {
	for range 4 {
		if !t.known() {
			return ty{}
		}
		if !t.ext() {
			it := w.l.traitItem(t.path)
			if it == nil {
				if mi := w.l.tab.mods[parentMod(t.path)]; mi != nil {
					it = mi.items[lastSeg(t.path)]
				}
			}
			if it == nil || it.Fields == nil {
				return ty{}
			}
			w.l.deps[it.file] = true
			var sub map[string]ty
			for i, g := range it.Generics {
				if i < len(t.args) && t.args[i].known() {
					if sub == nil {
						sub = map[string]ty{}
					}
					sub["$"+g] = t.args[i]
				}
			}
			return w.l.tySub(it.mod, it.Fields[name], it.Name, sub)
		}
		if !derefs[t.extName()] {
			return ty{}
		}
		t = t.arg0()
	}
	return ty{}
}

// unwraps are the methods of Option and Result that give what they hold.
var unwraps = map[string]bool{"unwrap": true, "expect": true, "unwrap_or": true, "unwrap_or_default": true, "unwrap_or_else": true, "unwrap_unchecked": true}

// sameType are the methods whose result has the receiver's type.
var sameType = map[string]bool{"clone": true, "to_owned": true, "as_ref": true, "as_mut": true, "borrow": true, "borrow_mut": true, "deref": true, "deref_mut": true, "lock": true, "read": true, "write": true}

// callType is the type a call returns.
func (w *walker) callType(n *sitter.Node) ty {
	fn := callee(n)
	if fn == nil {
		return ty{}
	}
	switch fn.Kind() {
	case "identifier":
		if _, local := w.locals[w.x.text(fn)]; local {
			return ty{}
		}
		return w.returnOf(w.l.resolvePath(w.b.mod, []string{w.x.text(fn)}, w.b.self))
	case "scoped_identifier":
		return w.returnOf(w.pathEnt(fn))
	case "field_expression":
		name := w.x.text(fieldChild(fn, "field"))
		t := w.exprType(fieldChild(fn, "value"))
		if !t.known() {
			return ty{}
		}
		if unwraps[name] && (t.path == "ext:Option" || t.path == "ext:Result") {
			return t.arg0()
		}
		if sameType[name] {
			if t.ext() && derefs[t.extName()] || t.path == "ext:RefCell" || t.path == "ext:Mutex" || t.path == "ext:RwLock" {
				return t.arg0()
			}
			if m := w.methodOf(t, name); m == nil {
				return t
			}
		}
		if m := w.methodOf(t, name); m != nil {
			return w.retType(m, t)
		}
	}
	return ty{}
}

// returnOf is the type a call of a resolved callee returns.
func (w *walker) returnOf(e ent) ty {
	switch e.kind {
	case "fn":
		return w.l.tyOf(e.it.mod, e.it.Ret, "")
	case "method":
		return w.retType(e.m, ty{path: e.path})
	case "struct", "variant":
		return ty{path: e.path}
	}
	return ty{}
}

// retType is what method m returns when called on a receiver of type
// recv: Self is the receiver's type.
func (w *walker) retType(m *methRef, recv ty) ty {
	name, _ := splitType(m.Ret)
	if name == "Self" {
		return recv
	}
	return w.l.tySub(m.mod, m.Ret, m.self, bindArgs(m.self, recv))
}
