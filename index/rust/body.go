//go:build cgo

package rust

import (
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/sitter"
)

// maxByName bounds the by-name candidates of a call whose target is not
// evident: a name more functions share gives none.
const maxByName = 8

// walker resolves the calls of one function body.
type walker struct {
	x      *extractor
	l      *lookup
	f      *sourceFile
	b      codeBody
	selfTy ty
	locals map[string]ty
	// extGlob: the module has a glob import from outside the repository,
	// so an unresolved bare name may well come from there
	extGlob bool
	// parse parses a macro's arguments again (macroargs.go); lineOff is
	// the line of the source their tree's first line is, nesting how
	// deep in macro arguments the walk is
	parse   func([]byte) *sitter.Tree
	lineOff int
	nesting int
	// closures holds the parameter types of the closures passed to a
	// resolved callee whose parameter declares them (F: FnMut(Snapshot))
	closures map[uintptr][]ty
}

// resolveBody walks a body's code for its calls.
func (w *walker) resolveBody(b codeBody) {
	w.b, w.locals, w.closures = b, map[string]ty{}, map[uintptr][]ty{}
	w.x.src, w.lineOff = b.src, b.lineOff
	w.selfTy = ty{}
	if b.self != "" {
		w.selfTy = w.l.tyOf(b.mod, b.self, "")
	}
	w.extGlob = false
	if mi := w.l.tab.mods[b.mod]; mi != nil {
		for _, g := range mi.globs {
			if e := w.l.resolvePath(b.mod, strings.Split(g.Path, "::"), ""); e.kind == "ext" {
				w.extGlob = true
			}
		}
	}
	w.bindParams(b.params)
	w.walk(b.body)
}

// bindParams binds a parameter list's names to their declared types.
func (w *walker) bindParams(ps *sitter.Node) {
	if ps == nil {
		return
	}
	for _, p := range sitter.Children(ps) {
		if p.Kind() == "parameter" {
			w.bind(fieldChild(p, "pattern"), w.l.tyOf(w.b.mod, w.x.typeText(fieldChild(p, "type"), w.b.gen), w.b.self))
		} else if p.Kind() != "self_parameter" {
			w.bind(p, ty{})
		}
	}
}

// bind binds the names of a pattern: a plain name to t, the name inside
// Some(x)/Ok(x) to t's first argument, every other name to unknown.
func (w *walker) bind(p *sitter.Node, t ty) {
	if p == nil {
		return
	}
	switch p.Kind() {
	case "identifier":
		w.locals[w.x.text(p)] = t
	case "mut_pattern", "ref_pattern", "reference_pattern":
		for _, c := range sitter.Children(p) {
			w.bind(c, t)
		}
	case "tuple_struct_pattern":
		name := lastSeg(squeeze(w.x.text(fieldChild(p, "type"))))
		inner := ty{}
		if (name == "Some" || name == "Ok") && (t.path == "ext:Option" || t.path == "ext:Result") {
			inner = t.arg0()
		}
		fields := w.variantFields(t, name)
		typeN := fieldChild(p, "type")
		i := 0
		for _, c := range sitter.Children(p) {
			if typeN != nil && c.Id() == typeN.Id() {
				continue
			}
			if i < len(fields) {
				inner = fields[i]
			}
			w.bind(c, inner)
			i++
		}
	case "field_pattern":
		if pat := fieldChild(p, "pattern"); pat != nil {
			w.bind(pat, ty{})
		} else {
			w.locals[w.x.text(fieldChild(p, "name"))] = ty{}
		}
	case "shorthand_field_identifier":
		w.locals[w.x.text(p)] = ty{}
	case "match_pattern", "or_pattern":
		for _, c := range sitter.Children(p) {
			if c.Kind() != "let_condition" && c.Kind() != "let_chain" {
				w.bind(c, t)
			}
		}
	case "struct_pattern", "tuple_pattern", "slice_pattern", "captured_pattern", "closure_parameters", "parameter":
		typeN := fieldChild(p, "type")
		for _, c := range sitter.Children(p) {
			if p.Kind() == "parameter" || typeN == nil || c.Id() != typeN.Id() {
				w.bind(c, ty{})
			}
		}
	}
}

// walk resolves the calls under n.
func (w *walker) walk(n *sitter.Node) {
	if n == nil {
		return
	}
	switch n.Kind() {
	case "let_declaration":
		v := fieldChild(n, "value")
		w.walk(v)
		w.walk(fieldChild(n, "alternative"))
		t := ty{}
		if tn := fieldChild(n, "type"); tn != nil {
			t = w.l.tyOf(w.b.mod, w.x.typeText(tn, w.b.gen), w.b.self)
		} else if v != nil {
			t = w.exprType(v)
		}
		w.bind(fieldChild(n, "pattern"), t)
		return
	case "let_condition":
		v := fieldChild(n, "value")
		w.walk(v)
		w.bind(fieldChild(n, "pattern"), w.exprType(v))
		return
	case "for_expression":
		v := fieldChild(n, "value")
		w.walk(v)
		w.bind(fieldChild(n, "pattern"), elemType(w.exprType(v)))
		w.walk(fieldChild(n, "body"))
		return
	case "closure_expression":
		hints := w.closures[n.Id()]
		if ps := fieldChild(n, "parameters"); ps != nil {
			for i, p := range sitter.Children(ps) {
				t := ty{}
				if i < len(hints) {
					t = hints[i]
				}
				if p.Kind() == "parameter" && fieldChild(p, "type") != nil {
					t = w.l.tyOf(w.b.mod, w.x.typeText(fieldChild(p, "type"), w.b.gen), w.b.self)
					p = fieldChild(p, "pattern")
				}
				w.bind(p, t)
			}
		}
		w.walk(fieldChild(n, "body"))
		return
	case "match_expression":
		v := fieldChild(n, "value")
		w.walk(v)
		t := w.exprType(v)
		if body := fieldChild(n, "body"); body != nil {
			for _, arm := range sitter.Children(body) {
				if arm.Kind() == "match_arm" {
					w.bind(fieldChild(arm, "pattern"), t)
				}
				w.walk(arm)
			}
		}
		return
	case "match_arm":
		w.walk(fieldChild(n, "value"))
		return
	case "match_pattern":
		for _, c := range sitter.Children(n) {
			w.bind(c, ty{})
		}
		return
	case "impl_item": // an impl inside a function: its functions' calls are the function's
		if body := fieldChild(n, "body"); body != nil {
			for _, c := range sitter.Children(body) {
				if c.Kind() == "function_item" {
					w.walk(c)
				}
			}
		}
		return
	case "function_item":
		w.bindParams(fieldChild(n, "parameters"))
		w.walk(fieldChild(n, "body"))
		return
	case "trait_item", "struct_item", "enum_item", "use_declaration", "attribute_item", "mod_item", "macro_definition":
		return
	case "call_expression":
		w.call(n)
	case "macro_invocation":
		w.macro(n)
		return
	}
	for _, c := range sitter.Children(n) {
		w.walk(c)
	}
}

// elemType is the type of what iterating t gives, when evident.
func elemType(t ty) ty {
	switch t.path {
	case "ext:Vec", "ext:[]", "ext:VecDeque", "ext:HashSet", "ext:BTreeSet", "ext:Option":
		return t.arg0()
	}
	return ty{}
}

func (w *walker) edge(kind graphdb.EdgeKind, to string, line int) {
	w.f.res.Edges = append(w.f.res.Edges, graphdb.Edge{From: w.b.from, To: graphdb.NodeID(to), Kind: kind, File: w.f.rel, Line: line + w.lineOff})
}

// callee unwraps f::<T> to f.
func callee(n *sitter.Node) *sitter.Node {
	fn := fieldChild(n, "function")
	if fn != nil && fn.Kind() == "generic_function" {
		fn = fieldChild(fn, "function")
	}
	return fn
}

// call resolves one call expression's target: a function or method of the
// repository gets a calls edge; a target that is not evident gets the
// repository's functions of that name as calls_by_name candidates.
func (w *walker) call(n *sitter.Node) {
	fn := callee(n)
	if fn == nil {
		return
	}
	line := nameLine(fn)
	switch fn.Kind() {
	case "identifier":
		name := w.x.text(fn)
		if _, local := w.locals[name]; local {
			return
		}
		e := w.l.resolvePath(w.b.mod, []string{name}, w.b.self)
		if e.kind == "" && !w.extGlob {
			w.byName(w.l.tab.fnNames[name], name, line)
			return
		}
		w.target(e, n, line)
	case "scoped_identifier":
		w.target(w.pathEnt(fn), n, line)
	case "field_expression":
		name := w.x.text(fieldChild(fn, "field"))
		t := w.exprType(fieldChild(fn, "value"))
		if !t.known() {
			w.byName(w.l.tab.mNames[name], "."+name, line)
			return
		}
		if m := w.methodOf(t, name); m != nil {
			w.edge(graphdb.EdgeCalls, m.ID, line)
			w.hintClosures(n, m.Params, m.mod, m.self, 0)
		}
	}
}

// hintClosures records the parameter types of the closures a call passes
// where the callee's parameter (params, written in mod) is a closure type;
// skip is the number of arguments before the first of params.
func (w *walker) hintClosures(call *sitter.Node, params []string, mod, self string, skip int) {
	args := fieldChild(call, "arguments")
	if args == nil {
		return
	}
	for i, a := range sitter.Children(args) {
		if a.Kind() != "closure_expression" || i < skip || i-skip >= len(params) {
			continue
		}
		p, ok := strings.CutPrefix(params[i-skip], "fn(")
		if !ok {
			continue
		}
		var ts []ty
		for _, pt := range splitArgs(strings.TrimSuffix(p, ")")) {
			ts = append(ts, w.l.tyOf(mod, pt, self))
		}
		w.closures[a.Id()] = ts
	}
}

// nameLine is the line of the name a call is made through: a method
// chain's calls each on the line of their method's name, as rustc
// places them.
func nameLine(fn *sitter.Node) int {
	var name *sitter.Node
	switch fn.Kind() {
	case "field_expression":
		name = fieldChild(fn, "field")
	case "scoped_identifier":
		name = fieldChild(fn, "name")
	}
	if name == nil {
		name = fn
	}
	return sitter.Line(name)
}

// byName writes the candidates of a call whose target is not evident, at
// most maxByName of them; key is what rust.byname records.
func (w *walker) byName(ids []string, key string, line int) {
	w.l.byName[key] = true
	if len(ids) == 0 || len(ids) > maxByName {
		return
	}
	for _, id := range ids {
		w.l.deps[w.l.tab.idFile[id]] = true
		w.edge(graphdb.EdgeCallsByName, id, line)
	}
}

// pathEnt resolves a scoped path in the body's module: Type::f,
// module::f, Self::f, <T as Trait>::f.
func (w *walker) pathEnt(fn *sitter.Node) ent {
	if p := fieldChild(fn, "path"); p != nil && p.Kind() == "bracketed_type" {
		name := w.x.text(fieldChild(fn, "name"))
		var t ty
		for _, c := range sitter.Children(p) {
			if c.Kind() == "qualified_type" {
				t = w.l.tyOf(w.b.mod, w.x.typeText(fieldChild(c, "type"), w.b.gen), w.b.self)
				if !t.known() {
					if e := w.l.resolveType(w.b.mod, w.x.typeText(fieldChild(c, "alias"), w.b.gen), w.b.self); e.kind == "trait" {
						t = ty{path: e.path}
					}
				}
			} else {
				t = w.l.tyOf(w.b.mod, w.x.typeText(c, w.b.gen), w.b.self)
			}
		}
		if m := w.methodOf(t, name); m != nil {
			return ent{kind: "method", path: t.path, m: m}
		}
		return ent{kind: "ext"}
	}
	segs := strings.Split(squeeze(w.x.text(fn)), "::")
	if b, ok := w.b.gen[segs[0]]; ok && len(segs) > 1 { // L::as_raw(…) with L: Link
		if b == "" {
			return ent{}
		}
		name, _ := splitType(b)
		segs = append(strings.Split(name, "::"), segs[1:]...)
	}
	return w.l.resolvePath(w.b.mod, segs, w.b.self)
}

// target writes the calls edge of a resolved callee; Trait::m(x) goes to
// x's implementation when x's type is evident.
func (w *walker) target(e ent, call *sitter.Node, line int) {
	switch e.kind {
	case "fn":
		w.edge(graphdb.EdgeCalls, e.it.ID, line)
		w.hintClosures(call, e.it.Params, e.it.mod, "", 0)
	case "method":
		m := e.m
		if m.provided && m.Self {
			if args := fieldChild(call, "arguments"); args != nil {
				if as := sitter.Children(args); len(as) > 0 {
					if t := w.exprType(as[0]); t.known() && t.path != e.path {
						if im := w.methodOf(t, m.Name); im != nil {
							m = im
						}
					}
				}
			}
		}
		w.edge(graphdb.EdgeCalls, m.ID, line)
		skip := 0
		if m.Self {
			skip = 1
		}
		w.hintClosures(call, m.Params, m.mod, m.self, skip)
	}
}

// methodOf finds the method name of a receiver of type t: the type's own,
// or, through Box, Rc, Arc and the like, the held type's.
func (w *walker) methodOf(t ty, name string) *methRef {
	for range 4 {
		if !t.known() {
			return nil
		}
		if m := w.l.method(t.path, name); m != nil {
			return m
		}
		if !t.ext() {
			if next, ok := w.deref(t); ok {
				t = next
				continue
			}
			w.l.unres[name] = true
			return nil
		}
		if !derefs[t.extName()] {
			return nil
		}
		t = t.arg0()
	}
	return nil
}

// macro records a macro invocation: a references edge to the
// macro_rules! definition of that name, preferring one in the same file,
// then in the same crate; and the calls inside the arguments of the
// macros whose arguments are expressions (macroargs.go).
func (w *walker) macro(n *sitter.Node) {
	mn := fieldChild(n, "macro")
	name := lastSeg(squeeze(w.x.text(mn)))
	defs := w.l.tab.macros[name]
	var best *itemRef
	crate := ""
	if mi := w.l.tab.mods[w.b.mod]; mi != nil {
		crate = mi.crate
	}
	for _, d := range defs {
		switch {
		case d.file == w.f.rel:
			best = d
		case best == nil || best.file != w.f.rel && crate != "" && strings.HasPrefix(d.mod, crate) && !strings.HasPrefix(best.mod, crate):
			best = d
		}
	}
	if best != nil {
		w.l.deps[best.file] = true
		w.edge(graphdb.EdgeReferences, best.ID, sitter.Line(n))
	}
	w.macroArgs(n, name)
}

// deref is what a value of the repository's type t derefs to, when t
// implements Deref: its Target, or t's first generic argument when the
// Target is a generic parameter (MutexGuard<'_, T> derefs to T).
func (w *walker) deref(t ty) (ty, bool) {
	d, ok := w.l.tab.derefs[t.path]
	if !ok {
		return ty{}, false
	}
	w.l.deps[d.file] = true
	if n := w.l.tyOf(d.mod, d.text, d.self); n.known() {
		return n, true
	}
	return t.arg0(), t.arg0().known()
}

// variantFields are the field types of the tuple variant name of the
// repository's enum t (Idle(buf) matched on a State).
func (w *walker) variantFields(t ty, name string) []ty {
	if !t.known() || t.ext() {
		return nil
	}
	mi := w.l.tab.mods[parentMod(t.path)]
	if mi == nil {
		return nil
	}
	it := mi.items[lastSeg(t.path)]
	if it == nil || it.VFields == nil {
		return nil
	}
	w.l.deps[it.file] = true
	var out []ty
	for _, f := range it.VFields[name] {
		out = append(out, w.l.tyOf(it.mod, f, it.Name))
	}
	return out
}
