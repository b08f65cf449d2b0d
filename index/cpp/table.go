//go:build cgo

package cpp

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// table is every file's scope, indexed for name lookup, with the node id
// of every declaration decided: a class's methods are named after the
// class (overloads carry their parameter types), a free function
// declared in several files is one node, owned by the first file in path
// order that defines it (or, when none does, that declares it), and a
// method defined out of line is the node of its declaration in the
// class.
type table struct {
	types   map[string][]*typeDef // by Q, in path order
	funcs   map[string][]*funcDef // free functions by Q, in path order
	ns      map[string]bool
	aliases map[string]string // Q → "ns|type as written"
	byName  map[string][]*funcDef
	owner   map[graphdb.NodeID]*funcDef // the declaration that is the node of an id
	typeIDs map[*typeDef]graphdb.NodeID
	scopes  map[string]*fileScope
}

// maxByName bounds the candidates of a call resolved by name only: a name
// with more declarations than that gives none.
const maxByName = 8

// maxLookupDepth bounds how far a lookup follows aliases and bases.
const maxLookupDepth = 16

// newTable indexes scopes (by file) and names their declarations.
func newTable(scopes map[string]*fileScope) *table {
	t := &table{types: map[string][]*typeDef{}, funcs: map[string][]*funcDef{}, ns: map[string]bool{},
		aliases: map[string]string{}, byName: map[string][]*funcDef{}, owner: map[graphdb.NodeID]*funcDef{},
		typeIDs: map[*typeDef]graphdb.NodeID{}, scopes: scopes}
	files := make([]string, 0, len(scopes))
	for rel := range scopes {
		files = append(files, rel)
	}
	sort.Strings(files)
	for _, rel := range files {
		sc := scopes[rel]
		for _, ns := range sc.NS {
			for p := ns; p != ""; p = parentNS(p) {
				t.ns[p] = true
			}
		}
		for _, td := range sc.Types {
			t.types[td.Q] = append(t.types[td.Q], td)
		}
		for q, a := range sc.Aliases {
			if _, ok := t.aliases[q]; !ok {
				t.aliases[q] = a
			}
		}
	}
	for q, tds := range t.types {
		for i, td := range tds {
			id := graphdb.NodeID("cpp:" + q)
			if i > 0 {
				id += graphdb.NodeID("@" + td.scope.file)
			}
			t.typeIDs[td] = id
			t.nameMethods(td, id)
		}
	}
	for _, rel := range files {
		for _, fd := range scopes[rel].Funcs {
			if fd.Class != "" && t.attach(fd) {
				continue
			}
			t.funcs[fd.Q] = append(t.funcs[fd.Q], fd)
		}
	}
	for q, fds := range t.funcs {
		t.nameFuncs(q, fds)
	}
	ids := make([]string, 0, len(t.owner))
	for id, fd := range t.owner {
		if !fd.Local {
			ids = append(ids, string(id))
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		fd := t.owner[graphdb.NodeID(id)]
		t.byName[fd.Name] = append(t.byName[fd.Name], fd)
	}
	return t
}

// sigKey is a function's parameter types, the part of its id that tells
// overloads apart.
func sigKey(fd *funcDef) string { return "(" + strings.Join(fd.Params, ",") + ")" + fd.Quals }

// nameMethods names the methods a class declares: "cpp:<class>::<name>",
// with the parameter types when the class declares the name more than
// once with different ones.
func (t *table) nameMethods(td *typeDef, id graphdb.NodeID) {
	sigs := map[string]map[string]bool{}
	for _, m := range td.Methods {
		if sigs[m.Name] == nil {
			sigs[m.Name] = map[string]bool{}
		}
		sigs[m.Name][sigKey(m)] = true
	}
	bodies := map[graphdb.NodeID]int{} // definitions in the class of one id so far
	for _, m := range td.Methods {
		m.owner = td
		m.need = m.Min
		m.id = id + graphdb.NodeID("::"+m.Name)
		if len(sigs[m.Name]) > 1 {
			m.id += graphdb.NodeID(sigKey(m))
		}
		if m.Body {
			// Definitions of one signature told apart by their template
			// constraints alone (enable_if): a node each.
			if n := bodies[m.id]; n > 0 {
				bodies[m.id]++
				m.id += graphdb.NodeID("#" + strconv.Itoa(n+1))
			} else {
				bodies[m.id] = 1
			}
		}
		if o := t.owner[m.id]; o == nil || m.Body && !o.Body && o.owner == td {
			t.owner[m.id] = m
		}
	}
}

// attach gives a method defined out of line the id of its declaration in
// its class; false when the class is not the repository's. The node of a
// method is its first definition, in path order (the declaration when
// none defines it): an out-of-line definition takes it from a
// declaration without a body.
func (t *table) attach(fd *funcDef) bool {
	l := t.lookup(fd.scope.file)
	cls := l.typeNamed(fd.Class, fd.NS, nil, nil)
	if cls == nil {
		return false
	}
	fd.owner = cls
	if m := matchDecl(cls.Methods, fd); m != nil {
		fd.id, fd.decl = m.id, m
		fd.need = min(m.Min, fd.Min)
		if o := t.owner[m.id]; o == nil || fd.Body && !o.Body {
			t.owner[m.id] = fd
		}
		return true
	}
	// A member the class does not declare (a static data member, a
	// specialization's method): a node of the defining file.
	fd.id = t.typeIDs[cls] + graphdb.NodeID("::"+fd.Name)
	for _, m := range cls.Methods {
		if m.Name == fd.Name {
			fd.id += graphdb.NodeID(sigKey(fd))
			break
		}
	}
	fd.need = fd.Min
	if o := t.owner[fd.id]; o == nil || fd.Body && !o.Body {
		t.owner[fd.id] = fd
	}
	return true
}

// matchDecl finds the declaration a definition defines: the same name
// and parameter types, else the one declaration of its name and arity,
// else the one of its name.
func matchDecl(decls []*funcDef, fd *funcDef) *funcDef {
	var arity, named []*funcDef
	for _, m := range decls {
		if m.Name != fd.Name {
			continue
		}
		if sigKey(m) == sigKey(fd) {
			return m
		}
		named = append(named, m)
		if len(m.Params) == len(fd.Params) {
			arity = append(arity, m)
		}
	}
	switch {
	case len(arity) == 1:
		return arity[0]
	case len(named) == 1:
		return named[0]
	}
	return nil
}

// nameFuncs names the declarations of one qualified function name: one
// node per signature (definitions matched to declarations as for
// methods), owned by the first defining file, else the first declaring
// one; a function of a file's own (static, unnamed namespace) is that
// file's node.
func (t *table) nameFuncs(q string, fds []*funcDef) {
	var reps []*funcDef // one per signature
	group := map[*funcDef][]*funcDef{}
	body := map[*funcDef]bool{}
	for _, fd := range fds {
		if fd.Local {
			continue
		}
		if m := matchDecl(reps, fd); m != nil && (sigKey(m) == sigKey(fd) || body[m] != fd.Body) &&
			!(fd.Body && definedIn(group[m], fd.scope)) {
			group[m] = append(group[m], fd)
			body[m] = body[m] || fd.Body
			continue
		}
		reps = append(reps, fd)
		group[fd] = []*funcDef{fd}
		body[fd] = fd.Body
	}
	seen := map[graphdb.NodeID]int{}
	for _, r := range reps {
		own := r
		need := r.Min
		for _, fd := range group[r] {
			need = min(need, fd.Min)
			if fd.Body && !own.Body {
				own = fd
			}
		}
		id := graphdb.NodeID("cpp:" + q)
		if len(t.types[q]) > 0 { // a class of the same name: ids are unique across kinds
			id += graphdb.NodeID("@" + own.scope.file)
		}
		if len(reps) > 1 {
			id += graphdb.NodeID(sigKey(r))
		}
		if n := seen[id]; n > 0 {
			seen[id]++
			id += graphdb.NodeID("#" + strconv.Itoa(n+1))
		} else {
			seen[id] = 1
		}
		for _, fd := range group[r] {
			fd.id = id
		}
		own.need = need
		t.owner[id] = own
	}
	for _, fd := range fds {
		if !fd.Local {
			continue
		}
		fd.id = graphdb.NodeID("cpp:" + q + "@" + fd.scope.file)
		if len(reps) > 0 || countLocal(fds, fd) > 1 {
			fd.id += graphdb.NodeID(sigKey(fd))
		}
		if t.owner[fd.id] == nil {
			t.owner[fd.id] = fd
		}
		fd.need = fd.Min
	}
}

// definedIn reports whether one of fds is a definition in scope: a second
// definition of a signature in one file differs by its template
// constraints (enable_if) and is a node of its own.
func definedIn(fds []*funcDef, sc *fileScope) bool {
	for _, fd := range fds {
		if fd.Body && fd.scope == sc {
			return true
		}
	}
	return false
}

func countLocal(fds []*funcDef, fd *funcDef) int {
	n := 0
	for _, o := range fds {
		if o.Local && o.scope == fd.scope {
			n++
		}
	}
	return n
}

// typeID is the node id of a type.
func (t *table) typeID(td *typeDef) graphdb.NodeID { return t.typeIDs[td] }

// lookup is one file's name resolution against the table: it records
// the files it read (cpp.deps) and whether a name failed to resolve.
type lookup struct {
	t     *table
	file  string
	deps  map[string]bool
	unres bool
}

func (t *table) lookup(file string) *lookup {
	return &lookup{t: t, file: file, deps: map[string]bool{}}
}

// pickType chooses among the types of one qualified name the file's own,
// else the first.
func (l *lookup) pickType(q string) *typeDef {
	tds := l.t.types[q]
	for _, td := range tds {
		if td.scope.file == l.file {
			return td
		}
	}
	for _, td := range tds {
		if l.visible(td.scope.file) {
			l.deps[td.scope.file] = true
			return td
		}
	}
	return nil
}

// visible reports whether what file declares can be what a name in the
// lookup's file means: the file itself, or a header (a source file's own
// declarations are not another source file's); a header of the tests
// only from the tests.
func (l *lookup) visible(file string) bool {
	if file == l.file {
		return true
	}
	if !isHeader(file) {
		return false
	}
	return !isTest(file) || isTest(l.file)
}

// isHeader reports whether a file is a header by its extension.
func isHeader(file string) bool {
	switch path.Ext(file) {
	case ".h", ".hh", ".hpp", ".hxx":
		return true
	}
	return false
}

// prefixes are the scopes a name written in ns (and in class cls) is
// looked up in, innermost first: the class, its bases, its enclosing
// classes, the namespaces out to the global one, then the
// using-directives'.
func (l *lookup) prefixes(ns string, cls *typeDef, usings []string) []string {
	var out []string
	seen := map[*typeDef]bool{}
	for c := cls; c != nil && len(out) < maxLookupDepth; {
		out = append(out, c.Q)
		for _, b := range l.bases(c, seen, 0) {
			out = append(out, b.Q)
		}
		outer := parentNS(c.Q)
		if outer == "" || outer == c.NS || l.t.ns[outer] {
			break
		}
		c = l.pickType(outer)
	}
	for p := ns; ; p = parentNS(p) {
		out = append(out, p)
		if p == "" {
			break
		}
	}
	return append(out, l.usingTargets(usings)...)
}

// usingTargets are the namespaces the using-directives name.
func (l *lookup) usingTargets(usings []string) []string {
	var out []string
	for _, u := range usings {
		uns, name, _ := strings.Cut(u, "|")
		if q := l.namespaceNamed(name, uns, nil); q != "" {
			out = append(out, q)
		}
	}
	return out
}

// namespaceNamed resolves a namespace name written in ns, through the
// enclosing namespaces and then the using-directives' namespaces; ""
// when the repository declares none of that name.
func (l *lookup) namespaceNamed(name, ns string, usings []string) string {
	if strings.HasPrefix(name, "::") {
		name = name[2:]
		if l.t.ns[name] {
			return name
		}
		return ""
	}
	for p := ns; ; p = parentNS(p) {
		if q := join(p, name); l.t.ns[q] {
			return q
		}
		if p == "" {
			break
		}
	}
	for _, u := range l.usingTargets(usings) {
		if q := join(u, name); l.t.ns[q] {
			return q
		}
	}
	return ""
}

// typeNamed resolves a type name as written in ns (within class cls,
// with using-directives usings); nil when it is not the repository's.
func (l *lookup) typeNamed(name, ns string, cls *typeDef, usings []string) *typeDef {
	return l.typeNamedDepth(name, ns, cls, usings, 0)
}

func (l *lookup) typeNamedDepth(name, ns string, cls *typeDef, usings []string, depth int) *typeDef {
	name = strings.Join(strings.Fields(name), "")
	if name == "" || depth > maxLookupDepth {
		return nil
	}
	scopes := []string{""}
	if strings.HasPrefix(name, "::") {
		name = name[2:]
	} else {
		scopes = l.prefixes(ns, cls, usings)
	}
	if strings.HasPrefix(name, "std::") {
		return nil
	}
	for _, p := range scopes {
		q := join(p, name)
		if td := l.pickType(q); td != nil {
			return td
		}
		if td := l.pickType(stripLastArgs(q)); td != nil {
			return td
		}
		if a, ok := l.t.aliases[q]; ok {
			ans, target, _ := strings.Cut(a, "|")
			b, _ := baseType(target)
			return l.typeNamedDepth(b, ans, nil, nil, depth+1)
		}
	}
	l.unres = true
	return nil
}

// stripLastArgs drops the template arguments of a qualified name's last
// part: ns::formatter<int> → ns::formatter (the template's node, for a
// specialization the repository does not declare).
func stripLastArgs(q string) string {
	p := parentNS(q)
	return join(p, stripArgs(lastName(q)))
}

// bases returns the repository's base classes of td, transitively,
// breadth-first.
func (l *lookup) bases(td *typeDef, seen map[*typeDef]bool, depth int) []*typeDef {
	var out []*typeDef
	queue := []*typeDef{td}
	seen[td] = true
	for len(queue) > 0 && depth < maxLookupDepth {
		depth++
		c := queue[0]
		queue = queue[1:]
		for _, b := range c.Bases {
			bt := l.typeNamedDepth(b, c.NS, l.outerOf(c), nil, 1)
			if bt == nil || seen[bt] {
				continue
			}
			seen[bt] = true
			out = append(out, bt)
			queue = append(queue, bt)
		}
	}
	return out
}

// outerOf is the class enclosing a nested class.
func (l *lookup) outerOf(td *typeDef) *typeDef {
	p := parentNS(td.Q)
	if p == "" || p == td.NS {
		return nil
	}
	return l.pickType(p)
}

// methodsNamed returns the methods of name in td or, when it declares
// none, the nearest bases that do; ext reports a base outside the
// repository, where the method may be declared instead.
func (l *lookup) methodsNamed(td *typeDef, name string) (ms []*funcDef, ext bool) {
	if ms := l.own(td, name); len(ms) > 0 {
		return ms, false
	}
	seen := map[*typeDef]bool{td: true}
	queue := []*typeDef{td}
	for depth := 0; len(queue) > 0 && depth < maxLookupDepth; depth++ {
		var next []*typeDef
		for _, c := range queue {
			for _, b := range c.Bases {
				bt := l.typeNamedDepth(b, c.NS, l.outerOf(c), nil, 1)
				if bt == nil {
					ext = true
					continue
				}
				if seen[bt] {
					continue
				}
				seen[bt] = true
				ms = append(ms, l.own(bt, name)...)
				next = append(next, bt)
			}
		}
		if len(ms) > 0 {
			return ms, false
		}
		queue = next
	}
	return nil, ext
}

// own returns the methods named name td declares (one per node), and
// those defined out of line for it that it does not declare.
func (l *lookup) own(td *typeDef, name string) []*funcDef {
	var out []*funcDef
	seen := map[graphdb.NodeID]bool{}
	for _, m := range td.Methods {
		if m.Name == name && !seen[m.id] {
			seen[m.id] = true
			out = append(out, l.t.owner[m.id])
		}
	}
	if len(out) > 0 {
		l.deps[td.scope.file] = true
	}
	return out
}

// funcsNamed returns the free functions of a qualified name, one per
// node.
func (l *lookup) funcsNamed(q string) []*funcDef {
	var out []*funcDef
	seen := map[graphdb.NodeID]bool{}
	visible := map[graphdb.NodeID]bool{} // ids one of whose declarations the file sees
	for _, fd := range l.t.funcs[q] {
		if fd.id != "" && (!fd.Local || fd.scope.file == l.file) && l.visible(fd.scope.file) {
			visible[fd.id] = true
		}
	}
	for _, fd := range l.t.funcs[q] {
		if !visible[fd.id] || seen[fd.id] {
			continue
		}
		seen[fd.id] = true
		if o := l.t.owner[fd.id]; o != nil {
			l.deps[o.scope.file] = true
			out = append(out, o)
		}
	}
	return out
}
