//go:build cgo

package python

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// moduleScope is what a module binds at module level: its functions and
// classes, the names its imports bind and its star imports. Fresh scopes
// come from extraction, stored ones from the module's nodes (module-node
// Attrs py.imports and py.stars, class Attrs py.bases).
type moduleScope struct {
	module, file string
	defs         map[string]symbol
	imports      map[string]string // local name → absolute dotted target
	stars        []string          // modules imported with *
	vars         map[string]string // module variable → vexpr (types.go)
	deps         []string          // every module any import statement names (py.deps)
	surface      string            // fingerprint of what other modules can see (py.surface)
	byName       []string          // names its by-name calls look up (py.byname), stored scopes only
}

type symbol struct {
	id  graphdb.NodeID
	cls *classInfo // non-nil for classes
	ret string     // a function's return vexpr
	fn  fnInfo     // a function's decorators
}

// fnInfo is what decides whether a call of a function reaches its body:
// decorators that may replace it, and whether it returns its first
// parameter unchanged (then, used as a decorator, it replaces nothing).
type fnInfo struct {
	decos    []string
	identity bool // returns its first parameter or a function nested in it (a wrapper)
	// params are the parameters a caller's arguments bind (self/cls of
	// methods left out; "*name" for keyword-only ones) and pcalls the
	// calls of parameters in the body; set only when pcalls is not empty
	// (values.go)
	params []string
	pcalls []paramCall
}

// classInfo is a module-level class.
type classInfo struct {
	id        graphdb.NodeID
	qname     string
	module    string
	methods   map[string]graphdb.NodeID
	baseExprs []string
	bases     []*classInfo // resolved in the repository, computed once
	resolved  bool
	attrs     map[string]string // class and instance attribute → vexpr
	rets      map[string]string // method → return vexpr
	order     []*classInfo      // method resolution order, computed once
	props     map[string]bool   // methods decorated with @property
	fns       map[string]fnInfo
	fields    []string // a NamedTuple's fields in order (py.fields): what unpacking yields
}

func newClassInfo(qname string) *classInfo {
	return &classInfo{qname: qname, methods: map[string]graphdb.NodeID{}, attrs: map[string]string{}, rets: map[string]string{}, props: map[string]bool{}, fns: map[string]fnInfo{}}
}

func newModuleScope(module, file string) *moduleScope {
	return &moduleScope{module: module, file: file, defs: map[string]symbol{}, imports: map[string]string{}, vars: map[string]string{}}
}

// define binds name unless already bound: the first definition keeps the
// plain id, later ones get "#n" ids.
func (s *moduleScope) define(name string, id graphdb.NodeID, cls *classInfo, ret string, fn fnInfo) {
	if _, ok := s.defs[name]; ok {
		return
	}
	if cls != nil {
		cls.module = s.module
	}
	s.defs[name] = symbol{id: id, cls: cls, ret: ret, fn: fn}
}

// Attrs of functions and methods that decide whether calls reach them.
const (
	attrDecorators = "py.decorators" // decorators that may replace it, one a line
	attrIdentity   = "py.identity"   // "1": returns its first parameter or a nested function
	attrParams     = "py.params"     // parameters a call binds, one a line (when py.pcalls is set)
	attrPcalls     = "py.pcalls"     // calls of a parameter: "param\tline" per line
)

func (f fnInfo) attrs(set func(k, v string)) {
	set(attrDecorators, strings.Join(f.decos, "\n"))
	if f.identity {
		set(attrIdentity, "1")
	}
	if len(f.pcalls) > 0 {
		set(attrParams, strings.Join(f.params, "\n"))
		var pc []string
		for _, c := range f.pcalls {
			pc = append(pc, fmt.Sprintf("%s\t%d", c.param, c.line))
		}
		set(attrPcalls, strings.Join(pc, "\n"))
	}
}

// key renders f for the surface fingerprint.
func (f fnInfo) key() string {
	k := fmt.Sprintf("{%v %v}", f.decos, f.identity)
	if len(f.pcalls) > 0 {
		k += fmt.Sprintf(" %v %v", f.params, f.pcalls)
	}
	return k
}

func fnInfoOf(n graphdb.Node) fnInfo {
	f := fnInfo{decos: frontend.SplitLines(n.Attrs[attrDecorators]), identity: n.Attrs[attrIdentity] == "1"}
	for _, l := range frontend.SplitLines(n.Attrs[attrPcalls]) {
		p, ln, _ := strings.Cut(l, "\t")
		if k, err := strconv.Atoi(ln); err == nil {
			f.pcalls = append(f.pcalls, paramCall{param: p, line: k})
		}
	}
	if len(f.pcalls) > 0 {
		f.params = frontend.SplitLines(n.Attrs[attrParams])
	}
	return f
}

// Module-node Attrs of Python modules.
const (
	attrImports = "py.imports" // "local\ttarget" per line
	attrStars   = "py.stars"   // star-imported modules, one per line
	attrDeps    = "py.deps"    // modules named by import statements, one per line
	attrSurface = "py.surface" // fingerprint of defs, methods, bases, imports, types
	attrVars    = "py.vars"    // module variable → vexpr, "name\tvexpr" per line
	attrAttrs   = "py.attrs"   // on classes: attribute → vexpr
	attrRet     = "py.ret"     // on functions and methods: return vexpr
	attrFields  = "py.fields"  // on NamedTuple classes: the fields in order, one a line
	attrByName  = "py.byname"  // names the module's by-name calls look up, one a line (byname.go)
)

// attrs encodes the scope into module-node Attrs and sets surface/deps.
func (s *moduleScope) attrs(stmts []importStmt) map[string]string {
	deps := map[string]bool{}
	for _, st := range stmts {
		for _, m := range st.mods {
			deps[m] = true
		}
	}
	s.deps = frontend.SortedKeys(deps)
	var imp []string
	for _, k := range frontend.SortedKeys(s.imports) {
		imp = append(imp, k+"\t"+s.imports[k])
	}
	h := sha256.New()
	for _, name := range frontend.SortedKeys(s.defs) {
		sym := s.defs[name]
		fmt.Fprintf(h, "d %s %s %s %s\n", name, sym.id, sym.ret, sym.fn.key())
		if sym.cls != nil {
			fmt.Fprintf(h, "b %s\n", strings.Join(sym.cls.baseExprs, ","))
			for _, m := range frontend.SortedKeys(sym.cls.methods) {
				fmt.Fprintf(h, "m %s %s %s %v %s\n", m, sym.cls.methods[m], sym.cls.rets[m], sym.cls.props[m], sym.cls.fns[m].key())
			}
			fmt.Fprintf(h, "a %q\n", typedAttrs(sym.cls.attrs))
			if len(sym.cls.fields) > 0 {
				fmt.Fprintf(h, "f %s\n", strings.Join(sym.cls.fields, ","))
			}
		}
	}
	fmt.Fprintf(h, "i %s\ns %s\nv %q\n", strings.Join(imp, ","), strings.Join(s.stars, ","), typedAttrs(s.vars))
	s.surface = hex.EncodeToString(h.Sum(nil)[:12])
	a := map[string]string{attrSurface: s.surface}
	if len(imp) > 0 {
		a[attrImports] = strings.Join(imp, "\n")
	}
	if len(s.stars) > 0 {
		a[attrStars] = strings.Join(s.stars, "\n")
	}
	if len(s.deps) > 0 {
		a[attrDeps] = strings.Join(s.deps, "\n")
	}
	if v := typedAttrs(s.vars); v != "" {
		a[attrVars] = v
	}
	return a
}

// storedScope rebuilds the scope of an unchanged module from its stored
// nodes. ok is false when the module node is missing.
func storedScope(module, file string, nodes []graphdb.Node) (*moduleScope, bool) {
	s := newModuleScope(module, file)
	found := false
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID }) // plain ids before "#n"
	classes := map[string]*classInfo{}
	lines := map[*classInfo][2]int{}
	for _, n := range nodes {
		switch {
		case n.Kind == graphdb.KindModule && n.ID == moduleID(module):
			found = true
			for _, l := range frontend.SplitLines(n.Attrs[attrImports]) {
				if k, v, ok := strings.Cut(l, "\t"); ok {
					s.imports[k] = v
				}
			}
			s.stars = frontend.SplitLines(n.Attrs[attrStars])
			s.deps = frontend.SplitLines(n.Attrs[attrDeps])
			s.surface = n.Attrs[attrSurface]
			s.vars = parseTypedAttrs(n.Attrs[attrVars])
			s.byName = frontend.SplitLines(n.Attrs[attrByName])
		case (n.Kind == graphdb.KindFunction || n.Kind == graphdb.KindType) && n.QName == module+"."+n.Name:
			var cls *classInfo
			if n.Kind == graphdb.KindType {
				cls = newClassInfo(n.QName)
				cls.id, cls.baseExprs, cls.attrs = n.ID, frontend.SplitLines(n.Attrs["py.bases"]), parseTypedAttrs(n.Attrs[attrAttrs])
				cls.fields = frontend.SplitLines(n.Attrs[attrFields])
				if _, dup := classes[n.Name]; !dup {
					classes[n.Name] = cls
					lines[cls] = [2]int{n.StartLine, n.EndLine}
				}
			}
			s.define(n.Name, n.ID, cls, n.Attrs[attrRet], fnInfoOf(n))
		}
	}
	for _, n := range nodes {
		if n.Kind != graphdb.KindMember || !strings.HasPrefix(n.QName, module+".") {
			continue
		}
		cname, mname, ok := strings.Cut(n.QName[len(module)+1:], ".")
		// A class declared twice in a module: the methods of the second
		// (class node "#2") share its qname prefix but are not the first
		// one's, which the scope holds; they lie outside its lines.
		if cls := classes[cname]; ok && cls != nil && s.defs[cname].cls == cls && n.StartLine >= lines[cls][0] && n.EndLine <= lines[cls][1] {
			if _, dup := cls.methods[mname]; !dup {
				cls.methods[mname] = n.ID
				if r := n.Attrs[attrRet]; r != "" {
					cls.rets[mname] = r
				}
				if n.Attrs["py.method"] == "property" {
					cls.props[mname] = true
				}
				if f := fnInfoOf(n); len(f.decos) > 0 || len(f.pcalls) > 0 {
					cls.fns[mname] = f
				}
			}
		}
	}
	return s, found
}

// symbolTable resolves names across the repository's modules.
type symbolTable struct {
	mods     map[string]*moduleScope
	memo     map[memoKey]memoVal // evaluations outside functions (types.go)
	fns      map[graphdb.NodeID]fnRef
	replaced map[graphdb.NodeID]bool
	props    map[string]bool // names of the repository's properties: attribute reads that may call a getter
	// byNameIdx: method name → the repository's methods of that name
	// (byname.go)
	byNameIdx map[string][]graphdb.NodeID
}

// fnRef is a function's decorator facts and its module.
type fnRef struct {
	info   fnInfo
	module string
}

func (t *symbolTable) add(s *moduleScope) {
	t.mods[s.module] = s
	if t.fns == nil {
		t.fns, t.replaced, t.props = map[graphdb.NodeID]fnRef{}, map[graphdb.NodeID]bool{}, map[string]bool{}
	}
	for _, sym := range s.defs {
		if sym.cls == nil {
			t.fns[sym.id] = fnRef{sym.fn, s.module}
			continue
		}
		for m, f := range sym.cls.fns {
			t.fns[sym.cls.methods[m]] = fnRef{f, s.module}
		}
		for m := range sym.cls.props {
			t.props[m] = true
		}
	}
}

// isReplaced reports whether a call of id does not reach its body: one of
// its decorators, written as a name, is known to return an instance of a
// class (`def command(fn): return Command(fn)`). Decorators returning the
// function, a wrapper or something unknown (functools.lru_cache,
// contextlib.contextmanager, decorator factories) keep the edge: they
// usually call the function, and Pyright names it as the callee too.
func (t *symbolTable) isReplaced(id graphdb.NodeID) bool {
	if r, ok := t.replaced[id]; ok {
		return r
	}
	f := t.fns[id]
	r := false
	for _, d := range f.info.decos {
		v, ok := t.evalExpr(evalCtx{scope: t.mods[f.module]}, d+"()", 0)
		if ok && v.inst {
			r = true
			break
		}
	}
	t.replaced[id] = r
	return r
}

// resolvedTarget is what a name resolves to.
type resolvedTarget struct {
	id     graphdb.NodeID
	cls    *classInfo
	module bool
}

const maxDepth = 12

func (t *symbolTable) lookup(s *moduleScope, parts []string, depth int) (resolvedTarget, bool) {
	if depth > maxDepth || len(parts) == 0 {
		return resolvedTarget{}, false
	}
	if sym, ok := s.defs[parts[0]]; ok {
		return t.member(sym, parts[1:])
	}
	if tgt, ok := s.imports[parts[0]]; ok {
		return t.abs(append(strings.Split(tgt, "."), parts[1:]...), depth+1)
	}
	for _, star := range s.stars {
		if ms := t.mods[star]; ms != nil && ms != s {
			if r, ok := t.lookup(ms, parts, depth+1); ok {
				return r, true
			}
		}
	}
	return resolvedTarget{}, false
}

// abs resolves an absolute dotted name: the longest prefix that is a
// module, then the rest in that module's scope. A name in the root package
// ("__init__.x", from a relative import at the top) that __init__.py does
// not bind is the root-level module x.
func (t *symbolTable) abs(parts []string, depth int) (resolvedTarget, bool) {
	for i := len(parts); i >= 1; i-- {
		ms := t.mods[strings.Join(parts[:i], ".")]
		if ms == nil {
			continue
		}
		if i == len(parts) {
			return resolvedTarget{id: moduleID(ms.module), module: true}, true
		}
		if r, ok := t.lookup(ms, parts[i:], depth); ok || parts[0] != "__init__" {
			return r, ok
		}
		break
	}
	if len(parts) > 1 && parts[0] == "__init__" {
		return t.abs(parts[1:], depth+1)
	}
	return resolvedTarget{}, false
}

func (t *symbolTable) member(sym symbol, rest []string) (resolvedTarget, bool) {
	switch {
	case len(rest) == 0:
		return resolvedTarget{id: sym.id, cls: sym.cls}, true
	case sym.cls != nil && len(rest) == 1:
		if id, ok := t.method(sym.cls, rest[0], false); ok {
			return resolvedTarget{id: id}, true
		}
	}
	return resolvedTarget{}, false
}

// bases resolves a class's bases (once) in its module's scope.
func (t *symbolTable) bases(c *classInfo) []*classInfo {
	if c.resolved {
		return c.bases
	}
	c.resolved = true
	s := t.mods[c.module]
	if s == nil {
		return nil
	}
	for _, e := range c.baseExprs {
		if r, ok := t.lookup(s, strings.Split(e, "."), 0); ok && r.cls != nil && r.cls != c {
			c.bases = append(c.bases, r.cls)
		}
	}
	return c.bases
}

// method finds name in c's method resolution order, skipping c itself
// for super().
func (t *symbolTable) method(c *classInfo, name string, skipSelf bool) (graphdb.NodeID, bool) {
	id, _, ok := t.methodOf(c, name, skipSelf)
	return id, ok
}

// methodOf is method that also returns the class defining the method.
func (t *symbolTable) methodOf(c *classInfo, name string, skipSelf bool) (graphdb.NodeID, *classInfo, bool) {
	for i, k := range t.mro(c) {
		if i == 0 && skipSelf {
			continue
		}
		if id, ok := k.methods[name]; ok {
			return id, k, true
		}
	}
	return "", nil, false
}

// mro is c's C3 linearization over the bases resolved in the repository;
// a hierarchy C3 rejects falls back to depth-first, left to right, each
// class once.
func (t *symbolTable) mro(c *classInfo) []*classInfo {
	if c.order != nil {
		return c.order
	}
	c.order = []*classInfo{c} // a cycle through c sees c alone
	var seqs [][]*classInfo
	bases := t.bases(c)
	long := false // a base's order is at the cap: c3merge would fail after its whole length
	for _, b := range bases {
		seqs = append(seqs, append([]*classInfo(nil), t.mro(b)...))
		long = long || len(t.mro(b)) >= maxMRO
	}
	seqs = append(seqs, append([]*classInfo(nil), bases...))
	var out []*classInfo
	ok := false
	if !long {
		out, ok = c3merge(seqs)
	}
	if !ok {
		out = nil
		seen := map[*classInfo]bool{c: true}
		for _, b := range bases {
			for _, k := range t.mro(b) {
				if !seen[k] && len(out) < maxMRO-1 {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	c.order = append([]*classInfo{c}, out...)
	return c.order
}

// maxMRO bounds a class's method resolution order: a hierarchy deeper
// than that (generated code, or a file made to exhaust the indexer, where
// each of 10,000 chained classes held its whole ancestry) resolves
// methods through its nearest maxMRO classes only.
const maxMRO = 256

// c3merge merges linearizations: repeatedly take the first head that is
// in no other sequence's tail.
func c3merge(seqs [][]*classInfo) ([]*classInfo, bool) {
	var out []*classInfo
	for len(out) < maxMRO {
		var cand *classInfo
		empty := true
		for _, s := range seqs {
			if len(s) == 0 {
				continue
			}
			empty = false
			h := s[0]
			inTail := false
			for _, o := range seqs {
				for _, k := range o[min(1, len(o)):] {
					if k == h {
						inTail = true
					}
				}
			}
			if !inTail {
				cand = h
				break
			}
		}
		if empty {
			return out, true
		}
		if cand == nil {
			return nil, false
		}
		out = append(out, cand)
		for i, s := range seqs {
			if len(s) > 0 && s[0] == cand {
				seqs[i] = s[1:]
			}
		}
	}
	return nil, false
}

// classOf returns the class with qname q declared in module m.
func (t *symbolTable) classOf(m, q string) *classInfo {
	s := t.mods[m]
	if s == nil || !strings.HasPrefix(q, m+".") {
		return nil
	}
	return s.defs[q[len(m)+1:]].cls
}

// resolve returns the targets of one reference: by name first, then
// through the types of values (types.go) for calls; none when it does
// not resolve inside the repository.
func (t *symbolTable) resolve(r reference) []graphdb.NodeID {
	if r.kind == graphdb.EdgeReferences {
		return t.valueTargets(r)
	}
	if r.implicit || r.prop {
		i := strings.LastIndexByte(r.expr, '.')
		if r.prop && !t.props[r.expr[i+1:]] {
			return nil // most attribute reads: no property has the name
		}
		v, ok := t.evalExpr(evalCtx{scope: t.mods[r.module], decl: r.decl, class: r.class}, r.expr[:i], 0)
		if !ok || !v.inst || v.cls == nil {
			return nil // the method is looked up on the class of an instance
		}
		id, owner, ok := t.methodOf(v.cls, r.expr[i+1:], false)
		if !ok || r.prop && !owner.props[r.expr[i+1:]] {
			return nil
		}
		return []graphdb.NodeID{id}
	}
	if ids := t.resolveName(r); len(ids) > 0 || r.kind != graphdb.EdgeCalls {
		return ids
	}
	return t.typedTargets(r)
}

// resolveName resolves a reference by its names alone: modules, imports,
// definitions, self/cls/super() in a class.
func (t *symbolTable) resolveName(r reference) []graphdb.NodeID {
	parts := strings.Split(r.expr, ".")
	if r.class != "" && len(parts) == 2 {
		switch parts[0] {
		case "super()":
			if c := t.classOf(r.module, r.class); c != nil {
				return t.methodIDs(c, parts[1], true)
			}
			return nil
		case "self", "cls":
			if c := t.classOf(r.module, r.class); c != nil {
				return t.methodIDs(c, parts[1], false)
			}
			return nil
		}
	}
	if r.class != "" && len(parts) == 2 && strings.HasPrefix(parts[0], "super(") {
		return t.superNamed(r, strings.TrimSuffix(strings.TrimPrefix(parts[0], "super("), ")"), parts[1])
	}
	if strings.HasPrefix(parts[0], "super(") || r.class != "" && (parts[0] == "self" || parts[0] == "cls") {
		return nil
	}
	var tg resolvedTarget
	var ok bool
	switch {
	case r.decl != nil && r.decl.imports[parts[0]] != "":
		tg, ok = t.abs(append(strings.Split(r.decl.imports[parts[0]], "."), parts[1:]...), 1)
	case r.decl != nil && r.decl.locals[parts[0]]:
		return nil
	default:
		s := t.mods[r.module]
		if s == nil {
			return nil
		}
		tg, ok = t.lookup(s, parts, 0)
	}
	if !ok || tg.module {
		return nil
	}
	if r.kind == graphdb.EdgeCalls && tg.cls != nil {
		return t.construct(tg.cls)
	}
	return []graphdb.NodeID{tg.id}
}

// superNamed resolves super(C, self).name inside class r.class: the
// lookup runs along the enclosing class's method resolution order,
// starting after C (matched by its class name). Nothing when C is not a
// plain name in that order
// (super(?)), or no later class defines name.
func (t *symbolTable) superNamed(r reference, cname, name string) []graphdb.NodeID {
	c := t.classOf(r.module, r.class)
	if c == nil || cname == "?" {
		return nil
	}
	after := false
	for _, k := range t.mro(c) {
		if after {
			if id, ok := k.methods[name]; ok {
				return []graphdb.NodeID{id}
			}
			continue
		}
		after = k.qname == cname || strings.HasSuffix(k.qname, "."+cname)
	}
	return nil
}

func (t *symbolTable) methodIDs(c *classInfo, name string, skipSelf bool) []graphdb.NodeID {
	if id, ok := t.method(c, name, skipSelf); ok {
		return []graphdb.NodeID{id}
	}
	return nil
}

// link adds a parsed file's resolved edges: calls, decorated_by, inherits
// and imports, and lists the names of its by-name calls on its module node.
func (t *symbolTable) link(f *sourceFile) {
	add := func(e graphdb.Edge) { f.res.Edges = append(f.res.Edges, e) }
	byName := map[string]bool{}
	for _, r := range f.refs {
		ids := t.resolve(r)
		for _, to := range ids {
			if r.kind == graphdb.EdgeCalls && t.isReplaced(to) {
				continue // the call reaches what the decorator returned
			}
			add(graphdb.Edge{From: r.from, To: to, Kind: r.kind, File: f.rel, Line: r.line})
		}
		if r.kind == graphdb.EdgeCalls {
			t.flow(r, ids, add)
		}
		if len(ids) == 0 {
			if name, ok := t.byName(r); ok {
				byName[name] = true
				for _, to := range t.candidates(name) {
					add(graphdb.Edge{From: r.from, To: to, Kind: graphdb.EdgeCallsByName, File: f.rel, Line: r.line})
				}
			}
		}
	}
	if len(byName) > 0 {
		f.res.Nodes[f.modNode].Attrs[attrByName] = strings.Join(frontend.SortedKeys(byName), "\n")
	}
	for _, n := range f.res.Nodes {
		if n.Kind != graphdb.KindType {
			continue
		}
		if c := t.classOf(f.module, n.QName); c != nil && c.id == n.ID {
			for _, b := range t.bases(c) {
				add(graphdb.Edge{From: c.id, To: b.id, Kind: graphdb.EdgeInherits, File: f.rel, Line: n.StartLine})
			}
		}
	}
	fid := frontend.FileID(f.rel)
	edge := func(m string, line int) {
		if m != f.module {
			add(graphdb.Edge{From: fid, To: moduleID(m), Kind: graphdb.EdgeImports, File: f.rel, Line: line})
		}
	}
	// prefix links the longest in-repo prefix of m.
	prefix := func(m string, line int) {
		parts := strings.Split(m, ".")
		for k := len(parts); k >= 1; k-- {
			if p := strings.Join(parts[:k], "."); t.mods[p] != nil {
				edge(p, line)
				return
			}
		}
	}
	for _, st := range f.imports {
		if !st.from {
			for _, m := range st.mods {
				prefix(m, st.line)
			}
			continue
		}
		// from base import a, b: base.a and base.b when they are modules,
		// else base.
		n, linked := len(st.mods), false
		for _, m := range st.mods[:n-1] {
			if t.mods[m] == nil && strings.HasPrefix(m, "__init__.") {
				m = m[len("__init__."):] // the root package's module (symbolTable.abs)
			}
			if t.mods[m] != nil {
				edge(m, st.line)
				linked = true
			}
		}
		if !linked {
			prefix(st.mods[n-1], st.line)
		}
	}
}
