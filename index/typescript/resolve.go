//go:build cgo

package typescript

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// symbolTable resolves names across the repository's TypeScript/JavaScript
// files (declaration files included).
type symbolTable struct {
	files map[string]*fileScope // by rel
	r     *resolver
	visit func(rel string) // records the files one file's resolution reads
	// byName indexes the methods by name for by-name candidates
	// (candidates); built on first use, after every scope is in files.
	byName map[string][]candidate
}

// resolvedTarget is what a name resolves to: a top-level declaration, a member
// of a class or interface, or a whole module (namespace import).
type resolvedTarget struct {
	scope  *fileScope
	decl   *scopeDecl
	member *classMember
	ns     bool
}

const maxDepth = 16

func (t *symbolTable) mod(from, spec string) *fileScope {
	rel := t.r.resolve(from, spec)
	if rel == "" {
		return nil
	}
	if t.visit != nil {
		t.visit(rel)
	}
	return t.files[rel]
}

// local resolves a top-level name of s: a declaration or an import.
func (t *symbolTable) local(s *fileScope, name string, depth int) (resolvedTarget, bool) {
	if depth > maxDepth {
		return resolvedTarget{}, false
	}
	if d := s.Decls[name]; d != nil {
		if d.Kind == "namespace" && d.NS != nil {
			return resolvedTarget{scope: d.NS, ns: true}, true
		}
		return resolvedTarget{scope: s, decl: d}, true
	}
	if im, ok := s.Imports[name]; ok {
		return t.imported(s, im, depth+1)
	}
	if s.parent != nil { // a namespace's body sees the enclosing scopes
		return t.local(s.parent, name, depth+1)
	}
	return resolvedTarget{}, false
}

func (t *symbolTable) imported(s *fileScope, im imp, depth int) (resolvedTarget, bool) {
	m := t.mod(s.file, im.Spec)
	if m == nil {
		return resolvedTarget{}, false
	}
	if im.Name == "*" {
		if m.Whole != "" {
			return t.local(m, m.Whole, depth+1)
		}
		return resolvedTarget{scope: m, ns: true}, true
	}
	return t.export(m, im.Name, depth+1)
}

// export resolves what module m exports as name: export lists and
// declarations, re-exports, `export *` (never "default"), and CommonJS
// module.exports.
func (t *symbolTable) export(m *fileScope, name string, depth int) (resolvedTarget, bool) {
	if depth > maxDepth {
		return resolvedTarget{}, false
	}
	if l, ok := m.Exports[name]; ok {
		return t.local(m, l, depth+1)
	}
	if re, ok := m.ReExports[name]; ok {
		return t.imported(m, re, depth+1)
	}
	if m.Whole != "" {
		tg, ok := t.local(m, m.Whole, depth+1)
		switch {
		case !ok:
		case name == "default":
			return tg, true
		case tg.ns:
			return t.export(tg.scope, name, depth+1)
		case tg.decl != nil && tg.decl.Members[name] != nil:
			return resolvedTarget{scope: tg.scope, decl: tg.decl, member: tg.decl.Members[name]}, true
		}
	}
	if name == "default" {
		return resolvedTarget{}, false
	}
	for _, st := range m.Stars {
		if sm := t.mod(m.file, st); sm != nil && sm != m {
			if tg, ok := t.export(sm, name, depth+1); ok {
				return tg, true
			}
		}
	}
	return resolvedTarget{}, false
}

// dotted resolves "a.b.c" in s: a top-level name, then members.
func (t *symbolTable) dotted(s *fileScope, expr string, depth int) (resolvedTarget, bool) {
	parts := strings.Split(expr, ".")
	tg, ok := t.local(s, parts[0], depth)
	for _, p := range parts[1:] {
		if !ok {
			break
		}
		tg, ok = t.step(tg, p, depth+1)
	}
	return tg, ok
}

// step resolves member p of tg: an export of a namespace, or a member of
// the class or interface tg is or has as type.
func (t *symbolTable) step(tg resolvedTarget, p string, depth int) (resolvedTarget, bool) {
	if depth > maxDepth {
		return resolvedTarget{}, false
	}
	if tg.ns {
		return t.export(tg.scope, p, depth+1)
	}
	if tg.member == nil && tg.decl != nil && tg.decl.Kind == "var" && tg.decl.Members != nil {
		// An object literal's property.
		if m := tg.decl.Members[p]; m != nil {
			return resolvedTarget{scope: tg.scope, decl: tg.decl, member: m}, true
		}
		return resolvedTarget{}, false
	}
	cls, ok := t.classOf(tg, depth+1)
	if !ok {
		return resolvedTarget{}, false
	}
	return t.member(cls, p, depth+1)
}

// classOf returns the class or interface tg denotes or holds an instance
// of: itself, or the declared type of a variable, field or function result.
func (t *symbolTable) classOf(tg resolvedTarget, depth int) (resolvedTarget, bool) {
	if depth > maxDepth {
		return resolvedTarget{}, false
	}
	switch {
	case tg.member != nil:
		if tg.member.Type == "" || tg.member.Fn {
			return resolvedTarget{}, false
		}
		return t.typeOf(tg.scope, tg.member.Type, depth+1)
	case tg.decl == nil:
		return resolvedTarget{}, false
	case tg.decl.Kind == "class" || tg.decl.Kind == "interface" || constructorFunc(tg.decl):
		return tg, true
	case tg.decl.Kind == "var" && tg.decl.Type != "":
		return t.typeOf(tg.scope, tg.decl.Type, depth+1)
	}
	return resolvedTarget{}, false
}

// typeOf resolves a type expression of s to a class or interface: a type
// name, or "()f", the declared return type of calling f.
func (t *symbolTable) typeOf(s *fileScope, typ string, depth int) (resolvedTarget, bool) {
	if depth > maxDepth || typ == "" {
		return resolvedTarget{}, false
	}
	if callee, ok := strings.CutPrefix(typ, "()"); ok {
		tg, ok := t.dotted(s, callee, depth+1)
		if !ok {
			return resolvedTarget{}, false
		}
		return t.returnOf(tg, depth+1)
	}
	tg, ok := t.dotted(s, typ, depth+1)
	if !ok || tg.decl == nil || tg.member != nil || tg.decl.Kind != "class" && tg.decl.Kind != "interface" && !constructorFunc(tg.decl) {
		return resolvedTarget{}, false
	}
	return tg, true
}

// returnOf is the class of what calling tg returns.
func (t *symbolTable) returnOf(tg resolvedTarget, depth int) (resolvedTarget, bool) {
	switch {
	case tg.member != nil && tg.member.Fn:
		return t.typeOf(tg.scope, tg.member.Type, depth+1)
	case tg.member == nil && tg.decl != nil && tg.decl.Kind == "function":
		return t.typeOf(tg.scope, tg.decl.Type, depth+1)
	}
	return resolvedTarget{}, false
}

// member finds name in a class or interface, then in its bases (extends
// first, depth-first).
func (t *symbolTable) member(cls resolvedTarget, name string, depth int) (resolvedTarget, bool) {
	seen := map[*scopeDecl]bool{}
	var walk func(c resolvedTarget, d int) (resolvedTarget, bool)
	walk = func(c resolvedTarget, d int) (resolvedTarget, bool) {
		if c.decl == nil || seen[c.decl] || d > maxDepth {
			return resolvedTarget{}, false
		}
		seen[c.decl] = true
		if m := c.decl.Members[name]; m != nil {
			return resolvedTarget{scope: c.scope, decl: c.decl, member: m}, true
		}
		for _, b := range t.bases(c, d+1) {
			if r, ok := walk(b, d+1); ok {
				return r, true
			}
		}
		return resolvedTarget{}, false
	}
	return walk(cls, depth)
}

// bases resolves a class's extends (and an interface's) in its scope.
func (t *symbolTable) bases(c resolvedTarget, depth int) []resolvedTarget {
	var out []resolvedTarget
	for _, b := range c.decl.Bases {
		if bt, ok := t.dotted(c.scope, b, depth+1); ok && bt.decl != nil && bt.member == nil && bt.decl != c.decl {
			out = append(out, bt)
		}
	}
	return out
}

// resolveRef returns the target node of a call or decorator in file s, ""
// when it does not resolve inside the repository. When it does not,
// unknown reports whether the call is a member call on a repository value
// whose class is not known (a parameter or variable without a type, the
// result of a repository function without a declared return type, a field
// without a type): the calls by-name candidates are recorded for. Calls
// on globals, on library values and on values of a known class lacking
// the member are not.
func (t *symbolTable) resolveRef(s *fileScope, r ref) (id graphdb.NodeID, unknown bool) {
	parts := strings.Split(r.expr, ".")
	var cur resolvedTarget
	ok := false
	rest := parts[1:]
	member := len(parts) > 1 && r.kind == graphdb.EdgeCalls && !r.ctor
	switch head := parts[0]; {
	case head == "this" || head == "super":
		cls := s.Decls[r.class]
		if r.class == "" || cls == nil || len(parts) == 1 && head == "this" || cls.Kind == "function" && !constructorFunc(cls) {
			return "", false
		}
		cur, ok = resolvedTarget{scope: s, decl: cls}, true
		if head == "super" {
			bs := t.bases(cur, 0)
			if len(bs) == 0 {
				return "", false
			}
			cur = bs[0]
			if len(parts) == 1 { // super(...): the base constructor
				return t.callTarget(cur, true), false
			}
		}
	case head[0] == '^':
		if len(parts) == 1 {
			return "", false
		}
		typ := strings.ReplaceAll(head[1:], ":", ".")
		if cur, ok = t.typeOf(s, typ, 0); !ok {
			return "", member && t.repoValueType(s, typ)
		}
	case r.fn != nil && hasKey(r.fn.locals, head):
		typ := r.fn.locals[head]
		switch {
		case len(parts) == 1:
			return "", false // a local value called
		case typ == "":
			return "", member // a local whose class is unknown
		case typ[0] == '@': // a callback's parameter
			cur, ok = t.callbackParam(s, r.class, typ[1:])
		case typ[0] == '~': // this (var self = this), or destructured from it
			cls := s.Decls[r.class]
			switch {
			case r.class == "" || cls == nil || cls.Kind == "function" && !constructorFunc(cls):
				return "", false
			case typ == "~":
				cur, ok = resolvedTarget{scope: s, decl: cls}, true
			default:
				if cur, ok = t.member(resolvedTarget{scope: s, decl: cls}, typ[1:], 0); ok {
					cur, ok = t.classOf(cur, 0)
				}
			}
		default:
			if cur, ok = t.typeOf(s, typ, 0); !ok {
				return "", member && t.repoValueType(s, typ)
			}
		}
		if !ok {
			return "", member
		}
	case (head == "exports" || head == "module" && len(parts) > 2 && parts[1] == "exports") && s.Decls[head] == nil && s.Imports[head].Spec == "":
		// exports.f() and module.exports.f(): the module's own export.
		if head == "module" {
			rest = parts[2:]
		}
		cur, ok = resolvedTarget{scope: s, ns: true}, true
	default:
		if cur, ok = t.local(s, head, 0); !ok {
			return "", false // a global, or a library's
		}
	}
	for i, p := range rest {
		next, nok := t.step(cur, p, 0)
		if !nok {
			// cur is the receiver of the rest of the chain; a property a
			// class does not declare (this.item set in a JavaScript
			// constructor) is a value of unknown class too.
			undeclared := i < len(rest)-1 && cur.member == nil && cur.decl != nil && cur.decl.Kind == "class"
			return "", member && (undeclared || t.unknownValue(cur))
		}
		cur = next
	}
	if r.kind == graphdb.EdgeDecoratedBy {
		if cur.member != nil {
			return cur.member.ID, false
		}
		if cur.decl != nil && (cur.decl.Kind == "function" || cur.decl.Kind == "class") {
			return cur.decl.ID, false
		}
		return "", false
	}
	return t.callTarget(cur, r.ctor), false
}

// unknownValue reports whether tg is a repository value whose class is
// not known: a variable or field without a type (or typed by a repository
// call without a declared return type), or a result of the same kind.
func (t *symbolTable) unknownValue(tg resolvedTarget) bool {
	switch {
	case tg.ns:
		return false
	case tg.member != nil:
		return !tg.member.Fn && t.repoValueType(tg.scope, tg.member.Type)
	case tg.decl != nil && tg.decl.Kind == "var":
		return t.repoValueType(tg.scope, tg.decl.Type)
	}
	return false
}

// repoValueType reports whether a value typed typ (in s) that did not
// resolve to a class is still a repository value of unknown class: no
// type, or the result of a repository function or method that declares
// no resolvable return type. A named type that does not resolve is a
// library's.
func (t *symbolTable) repoValueType(s *fileScope, typ string) bool {
	callee, isCall := strings.CutPrefix(typ, "()")
	switch {
	case typ == "":
		return true
	case !isCall:
		return false
	}
	tg, ok := t.dotted(s, callee, 0)
	return ok && (tg.member != nil && tg.member.Fn || tg.member == nil && tg.decl != nil && tg.decl.Kind == "function")
}

// maxByName caps the by-name candidates of one call: a method name
// defined in more places than this (get, map, toString) says nothing about
// the callee, and the call gets none.
const maxByName = 8

// candidate is a method a by-name call may land on.
type candidate struct {
	id   graphdb.NodeID
	file string
}

// candidates lists the methods named name in the repository's classes
// and object literals (sorted by id), nil when there are more than
// maxByName. Top-level functions are not candidates: a member call
// reaches one only through a module, which resolves by import.
func (t *symbolTable) candidates(name string) []candidate {
	if t.byName == nil {
		t.byName = candidateIndex(t.files, nil)
	}
	return capped(t.byName[name])
}

func capped(cs []candidate) []candidate {
	if len(cs) > maxByName {
		return nil
	}
	return cs
}

// candidateIndex lists by name (each list sorted by id) the methods of
// the classes and object literals of files; with only, just the names in
// only.
func candidateIndex(files map[string]*fileScope, only map[string]bool) map[string][]candidate {
	idx := map[string][]candidate{}
	seen := map[graphdb.NodeID]bool{} // a { f } property is f itself
	for _, rel := range frontend.SortedKeys(files) {
		files[rel].eachDecl(func(d *scopeDecl) {
			for mn, m := range d.Members {
				if m.Fn && m.ID != "" && !seen[m.ID] && (only == nil || only[mn]) {
					seen[m.ID] = true
					idx[mn] = append(idx[mn], candidate{id: m.ID, file: rel})
				}
			}
		})
	}
	for _, cs := range idx {
		sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
	}
	return idx
}

// callTarget is the node a call of tg lands on: a function or method, a
// class's constructor (inherited included) or the class when it has none.
func (t *symbolTable) callTarget(tg resolvedTarget, ctor bool) graphdb.NodeID {
	switch {
	case tg.member != nil:
		if tg.member.Fn {
			return tg.member.ID
		}
	case tg.ns || tg.decl == nil:
	case tg.decl.Kind == "function":
		return tg.decl.ID
	case tg.decl.Kind == "class":
		if c, ok := t.member(tg, "constructor", 0); ok && c.member.ID != "" {
			return c.member.ID
		}
		return tg.decl.ID
	}
	return ""
}

// callbackParam resolves "c|f|i|j" (or "n|C|i|j"): the type of
// parameter j of the function type of parameter i of f (C's constructor).
func (t *symbolTable) callbackParam(s *fileScope, class, spec string) (resolvedTarget, bool) {
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		return resolvedTarget{}, false
	}
	var i, j int
	if _, err := fmt.Sscan(f[2], &i); err != nil {
		return resolvedTarget{}, false
	}
	if _, err := fmt.Sscan(f[3], &j); err != nil {
		return resolvedTarget{}, false
	}
	var params [][]string
	var scope *fileScope
	if f[0] == "n" {
		cls, ok := t.typeOf(s, f[1], 0)
		if !ok {
			return resolvedTarget{}, false
		}
		c, ok := t.member(cls, "constructor", 0)
		if !ok {
			return resolvedTarget{}, false
		}
		params, scope = c.member.Params, c.scope
	} else {
		var tg resolvedTarget
		ok := false
		if rest, isThis := strings.CutPrefix(f[1], "this."); isThis {
			if cls := s.Decls[class]; class != "" && cls != nil && !strings.Contains(rest, ".") {
				tg, ok = t.member(resolvedTarget{scope: s, decl: cls}, rest, 0)
			}
		} else {
			tg, ok = t.dotted(s, f[1], 0)
		}
		switch {
		case !ok:
			return resolvedTarget{}, false
		case tg.member != nil:
			params, scope = tg.member.Params, tg.scope
		case tg.decl != nil && tg.decl.Kind == "function":
			params, scope = tg.decl.Params, tg.scope
		}
	}
	if i >= len(params) || j >= len(params[i]) || params[i][j] == "" {
		return resolvedTarget{}, false
	}
	return t.typeOf(scope, params[i][j], 0)
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// link adds a parsed file's resolved edges and sets its module node's
// Attrs (scope, surface, deps).
func (t *symbolTable) link(f *sourceFile) {
	deps := map[string]bool{}
	t.visit = func(rel string) {
		if rel != f.rel {
			deps[rel] = true
		}
	}
	defer func() { t.visit = nil }()
	s := f.scope
	add := func(e graphdb.Edge) { f.res.Edges = append(f.res.Edges, e) }
	byName := t.linkRefs(f, deps)
	typeID := func(sc *fileScope, typ string) graphdb.NodeID {
		if sc == nil {
			sc = s
		}
		tg, ok := t.dotted(sc, typ, 0)
		if !ok || tg.member != nil || tg.decl == nil || tg.decl.Kind == "var" || tg.decl.Kind == "function" {
			return ""
		}
		return tg.decl.ID
	}
	for _, tr := range f.types {
		to := typeID(tr.scope, tr.typ)
		switch {
		case to == "":
		case tr.kind == graphdb.EdgeReturns:
			add(graphdb.Edge{From: tr.from, To: to, Kind: graphdb.EdgeReturns, File: f.rel, Line: tr.line})
		default:
			add(graphdb.Edge{From: to, To: tr.from, Kind: graphdb.EdgeParamOf, File: f.rel, Line: tr.line})
		}
	}
	// Classes and interfaces, those in namespaces included, by node.
	scopeOf := map[graphdb.NodeID]*fileScope{}
	var walk func(sc *fileScope)
	walk = func(sc *fileScope) {
		for _, d := range sc.Decls {
			if d.ID != "" {
				scopeOf[d.ID] = sc
			}
			if d.NS != nil {
				walk(d.NS)
			}
		}
	}
	walk(s)
	for _, n := range f.res.Nodes {
		if n.Kind != graphdb.KindType || (n.SubKind != "class" && n.SubKind != "interface") {
			continue
		}
		sc := scopeOf[n.ID]
		d := sc.lookupID(n.Name, n.ID)
		if d == nil {
			continue
		}
		for _, b := range t.bases(resolvedTarget{scope: sc, decl: d}, 0) {
			if b.decl.ID != "" {
				add(graphdb.Edge{From: d.ID, To: b.decl.ID, Kind: graphdb.EdgeInherits, File: f.rel, Line: n.StartLine})
			}
		}
		for _, im := range d.Impls {
			if to := typeID(sc, im); to != "" {
				add(graphdb.Edge{From: d.ID, To: to, Kind: graphdb.EdgeImplements, File: f.rel, Line: n.StartLine})
			}
		}
	}
	unres := false
	for _, u := range f.specs {
		rel := t.r.resolve(f.rel, u.spec)
		if rel == "" {
			unres = unres || t.r.looksLocal(f.rel, u.spec)
			continue
		}
		deps[rel] = true
		if m := t.files[rel]; m != nil && rel != f.rel && !isDecl(rel) {
			add(graphdb.Edge{From: frontend.FileID(f.rel), To: moduleID(m.module), Kind: graphdb.EdgeImports, File: f.rel, Line: u.line})
		}
	}
	js, surface := s.encode()
	a := map[string]string{attrScope: js, attrSurface: surface}
	if len(deps) > 0 {
		a[attrDeps] = strings.Join(frontend.SortedKeys(deps), "\n")
	}
	if unres {
		a[attrUnres] = "1"
	}
	if len(byName) > 0 {
		a[attrByName] = strings.Join(frontend.SortedKeys(byName), "\n")
	}
	f.res.Nodes[f.modNode].Attrs = a
}

// linkRefs adds the edges of a parsed file's calls and decorators:
// calls to what they resolve to, and calls_by_name to the candidates of
// those on values of unknown class (their files join deps). It returns
// the method names of the by-name calls.
func (t *symbolTable) linkRefs(f *sourceFile, deps map[string]bool) map[string]bool {
	add := func(e graphdb.Edge) { f.res.Edges = append(f.res.Edges, e) }
	byName := map[string]bool{}
	for _, r := range f.refs {
		sc := r.scope
		if sc == nil {
			sc = f.scope
		}
		to, unknown := t.resolveRef(sc, r)
		if to != "" {
			add(graphdb.Edge{From: r.from, To: to, Kind: r.kind, File: f.rel, Line: r.line})
			continue
		}
		if !unknown {
			continue
		}
		name := r.expr[strings.LastIndexByte(r.expr, '.')+1:]
		byName[name] = true
		for _, c := range t.candidates(name) {
			if c.id != r.from {
				add(graphdb.Edge{From: r.from, To: c.id, Kind: graphdb.EdgeCallsByName, File: f.rel, Line: r.line})
			}
			if c.file != f.rel {
				deps[c.file] = true
			}
		}
	}
	return byName
}

// looksLocal reports whether an unresolved specifier may name a
// repository file that does not exist yet: relative, or matching a paths
// pattern or a workspace package.
func (r *resolver) looksLocal(from, spec string) bool {
	if strings.HasPrefix(spec, ".") {
		return true
	}
	if c := r.configFor(path.Dir(from)); c != nil {
		for pat := range c.paths {
			if pre, _, _ := strings.Cut(pat, "*"); strings.HasPrefix(spec, pre) {
				return true
			}
		}
	}
	return false
}

// constructorFunc reports whether d is a function with assigned members
// (Function.prototype.m = …, Function.m = …): a class for the resolver.
func constructorFunc(d *scopeDecl) bool { return d.Kind == "function" && d.Members != nil }
