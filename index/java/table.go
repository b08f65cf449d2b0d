//go:build cgo

package java

import (
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// table holds the repository's Java types by qualified name. It is
// shared by the resolving goroutines and read-only while they run: what
// they memoise lives in each file's lookup.
type table struct {
	types  map[string]*typeDef // by Q
	pkgs   map[string]bool     // packages declared in the repository
	byName map[string][]methodRef
	roots  map[string]bool     // first segments of the repository's packages
	dups   map[string][]string // file → its types that another file declares too
}

type memoKey struct {
	file, ctx, name string
}

// methodRef is a method with its declaring type, for by-name
// candidates.
type methodRef struct {
	t *typeDef
	m *methodDef
}

func newTable(scopes map[string]*fileScope) *table {
	t := &table{types: map[string]*typeDef{}, pkgs: map[string]bool{}, byName: map[string][]methodRef{},
		roots: map[string]bool{}, dups: map[string][]string{}}
	defer t.addJDK()
	for _, rel := range frontend.SortedKeys(scopes) {
		sc := scopes[rel]
		t.pkgs[sc.Pkg] = true
		root, _, _ := strings.Cut(sc.Pkg, ".")
		t.roots[root] = true
		for _, ty := range sc.Types {
			if first, dup := t.types[ty.Q]; !dup {
				t.types[ty.Q] = ty
			} else if first.scope != sc {
				t.dups[rel] = append(t.dups[rel], ty.Q)
				if f := first.scope.file; len(t.dups[f]) == 0 || t.dups[f][len(t.dups[f])-1] != ty.Q {
					t.dups[f] = append(t.dups[f], ty.Q)
				}
			}
			for _, m := range ty.Methods {
				if m.ID != "" && m.Name != "<init>" {
					t.byName[m.Name] = append(t.byName[m.Name], methodRef{ty, m})
				}
			}
		}
	}
	return t
}

// addJDK adds the JDK table's types that the repository does not declare.
func (t *table) addJDK() {
	for _, ty := range jdkTypes() {
		if _, ok := t.types[ty.Q]; !ok {
			t.types[ty.Q] = ty
		}
	}
}

// lookup resolves type names for one file, recording the files it
// reads (deps) and whether a name stayed unresolved.
//
// DESIGN: what a lookup memoises (resolved names, supertypes, method
// candidates) is its own, not the table's. A memo shared by the
// goroutines would make the recorded deps depend on scheduling: the file
// that computes an entry first records every file the computation read,
// the files that find it memoised only the result's. With one memo per
// file, a file's deps depend on nothing but the file and the table, so
// two indexes of one tree store the same java.deps, and an incremental
// run re-resolves the same dependents as a full one would have recorded.
type lookup struct {
	tab      *table
	deps     map[string]bool
	unres    bool
	byName   map[string]bool // keys of its by-name calls (byNameKey), nil: not recorded
	memo     map[memoKey]*typeDef
	sups     map[*typeDef][]*typeDef // supers of the repository's named types
	supUnres map[*typeDef]bool       // those whose supertype names did not all resolve
	methods  map[methodsKey]*methodSet
	cands    map[string][]graphdb.NodeID // by-name candidates by byNameKey
	busy     map[*typeDef]bool           // types whose supers are being computed
	// named indexes each type's methods by name, built on the first
	// question about the type: scanning Methods for every name a file
	// calls is quadratic in a class of 100,000 methods
	named map[*typeDef]map[string][]*methodDef
}

// methodsNamed returns t's own methods of that name, in declaration order.
func (l *lookup) methodsNamed(t *typeDef, name string) []*methodDef {
	idx, ok := l.named[t]
	if !ok {
		idx = map[string][]*methodDef{}
		for _, m := range t.Methods {
			idx[m.Name] = append(idx[m.Name], m)
		}
		if l.named == nil {
			l.named = map[*typeDef]map[string][]*methodDef{}
		}
		l.named[t] = idx
	}
	return idx[name]
}

func newLookup(tab *table) *lookup {
	return &lookup{tab: tab, deps: map[string]bool{}, byName: map[string]bool{}, memo: map[memoKey]*typeDef{},
		sups: map[*typeDef][]*typeDef{}, supUnres: map[*typeDef]bool{}, methods: map[methodsKey]*methodSet{},
		cands: map[string][]graphdb.NodeID{}, busy: map[*typeDef]bool{}}
}

// byNameCands returns the repository's methods named name that take nargs
// arguments, none when there are more than maxByName; memoised, as a
// name may have thousands of methods and calls.
func (l *lookup) byNameCands(name string, nargs int) []graphdb.NodeID {
	key := byNameKey(name, nargs)
	if c, ok := l.cands[key]; ok {
		return c
	}
	var cands []graphdb.NodeID
	for _, r := range l.tab.byName[name] {
		if arity(r.m, nargs) {
			cands = append(cands, r.m.ID)
		}
	}
	if len(cands) > maxByName {
		cands = nil
	}
	l.cands[key] = cands
	return cands
}

func (l *lookup) use(t *typeDef) *typeDef {
	if t != nil && t.scope != nil && t.scope != jdkScope && l.deps != nil {
		l.deps[t.scope.file] = true
	}
	return t
}

// resolve resolves a type as written in the context of type ctx (nil:
// the file level) of file sc; nil for primitives, type variables and types
// outside the repository.
func (l *lookup) resolve(sc *fileScope, ctx *typeDef, written string) *typeDef {
	if sc == nil || primitives[written] {
		return nil
	}
	name := written
	if strings.ContainsAny(written, "<>[]@. \t\n") {
		name, _ = erase(written)
	}
	if name == "" || primitives[name] {
		return nil
	}
	cq := ""
	if ctx != nil {
		cq = ctx.Q
	}
	key := memoKey{sc.file, cq, name}
	if ctx != nil && ctx.ID == "" {
		key.ctx = "" // local classes are not shared: do not memoise through them
	}
	t, ok := l.memo[key]
	if !ok || ctx != nil && ctx.ID == "" {
		t = l.resolveName(sc, ctx, name)
		if ctx == nil || ctx.ID != "" {
			l.memo[key] = t
		}
	}
	if t == nil && sc != jdkScope && !l.known(sc, name) {
		l.unres = true
	}
	return l.use(t)
}

// known reports whether an unresolved name is accounted for: a qualified
// name outside the repository's packages, or an import of one.
func (l *lookup) known(sc *fileScope, name string) bool {
	first, _, dotted := strings.Cut(name, ".")
	if dotted && !l.tab.roots[first] && first != "" && first[0] >= 'a' && first[0] <= 'z' {
		return true // a qualified name in a package tree the repository has nothing of
	}
	if q, ok := sc.Imports[first]; ok {
		return !l.tab.pkgs[q[:max(strings.LastIndexByte(q, '.'), 0)]]
	}
	return false
}

func (l *lookup) resolveName(sc *fileScope, ctx *typeDef, name string) *typeDef {
	first, rest, dotted := strings.Cut(name, ".")
	t := l.simple(sc, ctx, first)
	if !dotted {
		return t
	}
	if t != nil {
		return l.nested(t, rest)
	}
	// A qualified name: the longest prefix that is a type.
	parts := strings.Split(name, ".")
	for i := len(parts); i > 0; i-- {
		if t := l.tab.types[strings.Join(parts[:i], ".")]; t != nil {
			if i == len(parts) {
				return t
			}
			return l.nested(t, strings.Join(parts[i:], "."))
		}
	}
	return nil
}

// nested follows member type names below t.
func (l *lookup) nested(t *typeDef, rest string) *typeDef {
	for _, p := range strings.Split(rest, ".") {
		if t = l.memberType(t, p, 0); t == nil {
			return nil
		}
	}
	return t
}

// memberType finds member type n of t or of its supertypes.
func (l *lookup) memberType(t *typeDef, n string, depth int) *typeDef {
	if t == nil || depth > 12 {
		return nil
	}
	if t.outer != nil {
		// A local or anonymous class declares no member types of the
		// table (and its name grows with its nesting): only its
		// supertypes may have them.
	} else if m := l.tab.types[t.Q+"."+n]; m != nil {
		return m
	}
	for _, s := range l.supers(t) {
		if m := l.memberType(s, n, depth+1); m != nil {
			return m
		}
	}
	return nil
}

// simple resolves a simple type name: type variables, member types of the
// enclosing classes, the file's and package's types, imports, on-demand
// imports, java.lang.
func (l *lookup) simple(sc *fileScope, ctx *typeDef, n string) *typeDef {
	for c := ctx; c != nil; c = l.enclosing(c) {
		for _, tp := range c.TParams {
			if tp == n {
				return nil
			}
		}
		if c.ID != "" && simpleName(c.Q) == n {
			return c
		}
		if m := l.memberType(c, n, 0); m != nil {
			return m
		}
	}
	if q, ok := sc.Imports[n]; ok {
		return l.tab.types[q]
	}
	if t := l.tab.types[join(sc.Pkg, n)]; t != nil {
		return t
	}
	for _, d := range sc.Demand {
		if t := l.tab.types[d+"."+n]; t != nil {
			return t
		}
		if dt := l.tab.types[d]; dt != nil {
			if m := l.memberType(dt, n, 0); m != nil {
				return m
			}
		}
	}
	if t := l.tab.types["java.lang."+n]; t != nil {
		return t
	}
	return l.tab.types[n]
}

func join(pkg, n string) string {
	if pkg == "" {
		return n
	}
	return pkg + "." + n
}

// enclosing is the type lexically enclosing t.
func (l *lookup) enclosing(t *typeDef) *typeDef {
	if t.outer != nil {
		return t.outer
	}
	if t.Outer == "" {
		return nil
	}
	return l.tab.types[t.Outer]
}

// supers returns t's superclass (first) and superinterfaces in the
// repository; enums extend java.lang.Enum and records java.lang.Record.
//
// Supertypes named through each other (class A extends B, class B extends
// A.Inner: a cycle javac rejects) would recurse without end: a type whose
// supertypes are asked for while they are being computed has none.
func (l *lookup) supers(t *typeDef) []*typeDef {
	if l.busy[t] {
		return nil
	}
	out, ok := l.sups[t]
	unres := l.supUnres[t]
	if ok {
		for _, s := range out {
			l.use(s)
		}
		if t.Super != "" || len(t.Ifaces) > 0 {
			l.use(t) // its supertypes were resolved in its file's context
		}
		l.unres = l.unres || unres
		return out
	}
	saved := l.unres
	l.unres = false
	l.busy[t] = true
	out = l.computeSupers(t)
	delete(l.busy, t)
	unres = l.unres
	l.unres = saved || unres
	l.sups[t] = out
	l.supUnres[t] = unres
	return out
}

func (l *lookup) computeSupers(t *typeDef) []*typeDef {
	var out []*typeDef
	ctx := l.enclosing(t)
	if t.ID == "" {
		ctx = t.outer
	}
	add := func(w string) {
		if s := l.resolveSuper(t, ctx, w); s != nil && s != t {
			out = append(out, s)
		}
	}
	switch {
	case t.Super != "":
		add(t.Super)
	case t.Kind == "enum":
		out = append(out, l.use(l.tab.types["java.lang.Enum"]))
	case t.Kind == "record":
		out = append(out, l.use(l.tab.types["java.lang.Record"]))
	case t.Kind == "class" && t.Q != "java.lang.Object":
		out = append(out, l.use(l.tab.types["java.lang.Object"]))
	}
	for _, w := range t.Ifaces {
		add(w)
	}
	return nonNilTypes(out)
}

// resolveSuper resolves a supertype name: in the enclosing context, as
// member types of t itself are not in scope of its own header.
func (l *lookup) resolveSuper(t, ctx *typeDef, w string) *typeDef {
	if t.scope == nil {
		return nil
	}
	return l.resolve(t.scope, ctx, w)
}

func nonNilTypes(ts []*typeDef) []*typeDef {
	out := ts[:0]
	for _, t := range ts {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// isSubtype reports whether a is b or inherits from it.
func (l *lookup) isSubtype(a, b *typeDef) bool {
	seen := map[*typeDef]bool{}
	var walk func(t *typeDef, depth int) bool
	walk = func(t *typeDef, depth int) bool {
		if t == b {
			return true
		}
		if seen[t] || depth > 24 {
			return false
		}
		seen[t] = true
		for _, s := range l.supers(t) {
			if walk(s, depth+1) {
				return true
			}
		}
		return false
	}
	return walk(a, 0)
}

// field finds field n of t or its supertypes.
func (l *lookup) field(t *typeDef, n string) (*fieldDef, *typeDef) {
	seen := map[*typeDef]bool{}
	var walk func(t *typeDef, depth int) (*fieldDef, *typeDef)
	walk = func(t *typeDef, depth int) (*fieldDef, *typeDef) {
		if t == nil || seen[t] || depth > 24 {
			return nil, nil
		}
		seen[t] = true
		if f := t.Fields[n]; f != nil {
			return f, t
		}
		for _, s := range l.supers(t) {
			if f, o := walk(s, depth+1); f != nil {
				return f, o
			}
		}
		return nil, nil
	}
	return walk(t, 0)
}

// externalSuper reports whether t or one of its supertypes in the
// repository names a supertype outside it.
func (l *lookup) externalSuper(t *typeDef, depth int) bool {
	if t.scope == jdkScope {
		return true
	}
	if depth > 12 {
		return false
	}
	written := append([]string(nil), t.Ifaces...)
	if t.Super != "" {
		written = append(written, t.Super)
	}
	sups := l.supers(t)
	if len(sups) < len(written) {
		return true
	}
	for _, s := range sups {
		if l.externalSuper(s, depth+1) {
			return true
		}
	}
	return false
}
