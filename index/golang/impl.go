package golang

import (
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// methodSet is the fingerprint of one named type: its kind ('c' concrete,
// 'i' interface) and the sorted lines "name signature" of its method set
// (of *T for concrete types). Unexported names are qualified by package
// path; types in signatures are printed with full package paths and no
// parameter names, so two lines are equal exactly when the methods are
// identical for the purpose of interface satisfaction.
type methodSet struct {
	id    graphdb.NodeID
	iface bool
	lines []string
	// free has one byte per type parameter of a generic interface: 'a'
	// when its constraint is the empty interface (any), so that it stands
	// for whatever type a candidate's method has at its place, 'c' when it
	// is constrained and corresponds only to the candidate's type
	// parameter of the same position. Empty for every other type.
	free string
	// ptr lists, comma-separated, the methods of a concrete type's method
	// set that only *T has. Implements ignores it (it compares *T's), but
	// it is encoded: a receiver turning from value to pointer changes no
	// line, and the packages embedding the type must still be reloaded to
	// update their go.pointer_methods.
	ptr string
}

// attrMethodSets is the module-node attribute holding the fingerprints of
// every named type of the package, one type per line:
// "Name\tkind\tline\x1fline…", kind "c" for a concrete type ("c*" and
// methodSet.ptr when only *T has some methods), "i" followed by
// methodSet.free for an interface.
const attrMethodSets = "go.methodsets"

// methodSets computes the fingerprints of the package-level named types of
// pkg. Aliases, empty interfaces, constraint interfaces and types without
// methods are skipped: they take part in no implements edge.
//
// DESIGN: generic types take part through their generic declaration. A
// type parameter is printed as its position ($0, $1…), so the lines of
// G[T] mentioning no parameter match non-generic interfaces exactly (every
// instantiation of G implements them). A generic interface I[T] is
// implemented by every type that implements one of its instantiations:
// the interface's lines are patterns in which T stands for any type
// (bound once for all lines), so IntList with Push(int) implements
// Pusher[T] through Pusher[int], Map[K, V] with Put(V) implements it
// through Pusher[V], and List[E] with Push(E) through Pusher[E]. The edge
// goes to the generic interface's node: the graph has one node per
// declaration, none per instantiation. A constrained parameter (comparable,
// ~int, a method) is not matched against arbitrary types, whose
// constraint satisfaction a fingerprint cannot tell; it corresponds only
// to the candidate's type parameter at the same position (G[X] implements
// I[X]). Method sets of instantiated types count wherever go/types puts
// them in a method set: a struct embedding List[int] gets Push(int).
func methodSets(pkg *types.Package) []methodSet {
	var out []methodSet
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		id := symID(pkg.Path() + "." + name)
		if it, ok := n.Underlying().(*types.Interface); ok {
			if it.NumMethods() == 0 || !it.IsMethodSet() {
				continue
			}
			ms := methodSet{id: id, iface: true, free: freeParams(n.TypeParams())}
			for i := 0; i < it.NumMethods(); i++ {
				ms.lines = append(ms.lines, methodLine(it.Method(i)))
			}
			sort.Strings(ms.lines)
			out = append(out, ms)
			continue
		}
		if _, isPtr := n.Underlying().(*types.Pointer); isPtr {
			continue
		}
		mset := types.NewMethodSet(types.NewPointer(n))
		if mset.Len() == 0 {
			continue
		}
		ms := methodSet{id: id, ptr: strings.Join(pointerOnlyMethods(n, mset), ",")}
		for i := 0; i < mset.Len(); i++ {
			if fn, ok := mset.At(i).Obj().(*types.Func); ok {
				ms.lines = append(ms.lines, methodLine(fn))
			}
		}
		sort.Strings(ms.lines)
		out = append(out, ms)
	}
	return out
}

// methodSetAttrs returns the attributes of a named type's node that
// describe its method set beyond its member nodes: for a concrete type T,
// graphdb.AttrPointerMethods, the methods of *T's method set missing from
// T's (pointer receivers, declared or promoted through an embedded field);
// for an interface, graphdb.AttrEmbeddedMethods, the methods it gets from
// embedded interfaces. Nil when there are none, and for aliases.
func methodSetAttrs(obj types.Object) map[string]string {
	tn, ok := obj.(*types.TypeName)
	if !ok || tn.IsAlias() {
		return nil
	}
	n, ok := tn.Type().(*types.Named)
	if !ok {
		return nil
	}
	var names []string
	key := graphdb.AttrPointerMethods
	switch u := n.Underlying().(type) {
	case *types.Interface:
		if u.NumEmbeddeds() == 0 {
			return nil
		}
		key = graphdb.AttrEmbeddedMethods
		declared := map[string]bool{}
		for i := 0; i < u.NumExplicitMethods(); i++ {
			declared[u.ExplicitMethod(i).Name()] = true
		}
		for i := 0; i < u.NumMethods(); i++ {
			if m := u.Method(i).Name(); !declared[m] {
				names = append(names, m)
			}
		}
	case *types.Pointer:
		return nil // no methods
	default:
		names = pointerOnlyMethods(n, types.NewMethodSet(types.NewPointer(n)))
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return map[string]string{key: strings.Join(names, ",")}
}

// pointerOnlyMethods returns the names of the methods in ptr, the method
// set of *T, that T's method set lacks, in ptr's order.
func pointerOnlyMethods(t types.Type, ptr *types.MethodSet) []string {
	if ptr.Len() == 0 {
		return nil
	}
	val := types.NewMethodSet(t)
	if val.Len() == ptr.Len() {
		return nil // T's method set is a subset of *T's
	}
	var names []string
	for i := 0; i < ptr.Len(); i++ {
		if m := ptr.At(i).Obj(); val.Lookup(m.Pkg(), m.Name()) == nil {
			names = append(names, m.Name())
		}
	}
	return names
}

// freeParams returns methodSet.free for a generic interface's type
// parameters: "" when there are none, else 'a' for each parameter whose
// constraint is the empty interface, 'c' for the others.
func freeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	b := make([]byte, tps.Len())
	for i := range b {
		b[i] = 'c'
		if it, ok := tps.At(i).Constraint().Underlying().(*types.Interface); ok && it.Empty() {
			b[i] = 'a'
		}
	}
	return string(b)
}

func methodLine(fn *types.Func) string {
	var b strings.Builder
	b.WriteString(qualName(fn.Pkg(), fn.Name()))
	b.WriteByte(' ')
	writeSig(&b, fn.Type().(*types.Signature), 0)
	return b.String()
}

// qualName qualifies unexported names by package path (they are distinct
// per package).
func qualName(pkg *types.Package, name string) string {
	if pkg == nil || token.IsExported(name) {
		return name
	}
	return pkg.Path() + "." + name
}

// writeType prints t canonically: full package paths, no parameter names.
func writeType(b *strings.Builder, t types.Type, depth int) {
	if depth > 32 {
		b.WriteString("…")
		return
	}
	depth++
	switch t := t.(type) {
	case *types.Alias:
		writeType(b, types.Unalias(t), depth)
	case *types.Basic:
		// By kind: byte and uint8 (rune and int32) are one type, but
		// go/types keeps the spelling in Name.
		b.WriteString(types.Typ[t.Kind()].Name())
	case *types.Pointer:
		b.WriteByte('*')
		writeType(b, t.Elem(), depth)
	case *types.Slice:
		b.WriteString("[]")
		writeType(b, t.Elem(), depth)
	case *types.Array:
		b.WriteString("[" + strconv.FormatInt(t.Len(), 10) + "]")
		writeType(b, t.Elem(), depth)
	case *types.Map:
		b.WriteString("map[")
		writeType(b, t.Key(), depth)
		b.WriteByte(']')
		writeType(b, t.Elem(), depth)
	case *types.Chan:
		b.WriteString(chanPrefix[t.Dir()])
		writeType(b, t.Elem(), depth)
	case *types.Signature:
		b.WriteString("func")
		writeSig(b, t, depth)
	case *types.Named:
		writeNamed(b, t, depth)
	case *types.TypeParam:
		// By position, not name: G[E] and I[T] correspond when their
		// methods use their first type parameter alike (see methodSets).
		b.WriteString("$" + strconv.Itoa(t.Index()))
	case *types.Struct:
		writeStruct(b, t, depth)
	case *types.Interface:
		writeInterface(b, t, depth)
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			if i > 0 {
				b.WriteString("|")
			}
			if t.Term(i).Tilde() {
				b.WriteByte('~')
			}
			writeType(b, t.Term(i).Type(), depth)
		}
	case *types.Tuple:
		writeTuple(b, t, false, depth)
	default:
		b.WriteString(types.TypeString(t, nil))
	}
}

// chanPrefix is how writeType prints a channel type before its element,
// indexed by types.ChanDir.
var chanPrefix = [...]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}

// writeNamed prints a named type by package path and name, a local type
// with its declaration's position (its identity), then its type arguments.
func writeNamed(b *strings.Builder, t *types.Named, depth int) {
	obj := t.Obj()
	if obj.Pkg() != nil {
		b.WriteString(obj.Pkg().Path() + ".")
	}
	b.WriteString(obj.Name())
	if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() {
		b.WriteString("@" + strconv.Itoa(int(obj.Pos())))
	}
	if args := t.TypeArgs(); args != nil && args.Len() > 0 {
		b.WriteByte('[')
		for i := 0; i < args.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			writeType(b, args.At(i), depth)
		}
		b.WriteByte(']')
	}
}

func writeStruct(b *strings.Builder, t *types.Struct, depth int) {
	b.WriteString("struct{")
	for i := 0; i < t.NumFields(); i++ {
		f := t.Field(i)
		if i > 0 {
			b.WriteString("; ")
		}
		if f.Embedded() {
			b.WriteString("embed ")
		}
		b.WriteString(qualName(f.Pkg(), f.Name()) + " ")
		writeType(b, f.Type(), depth)
		if tag := t.Tag(i); tag != "" {
			b.WriteString(" " + strconv.Quote(tag))
		}
	}
	b.WriteByte('}')
}

// writeInterface prints an interface's method set, then the embedded
// elements that are no interfaces (type-set terms).
func writeInterface(b *strings.Builder, t *types.Interface, depth int) {
	b.WriteString("interface{")
	for i := 0; i < t.NumMethods(); i++ {
		if i > 0 {
			b.WriteString("; ")
		}
		m := t.Method(i)
		b.WriteString(qualName(m.Pkg(), m.Name()))
		writeSig(b, m.Type().(*types.Signature), depth)
	}
	for i := 0; i < t.NumEmbeddeds(); i++ {
		if _, ok := t.EmbeddedType(i).Underlying().(*types.Interface); ok {
			continue // its methods are already listed
		}
		b.WriteString("; ")
		writeType(b, t.EmbeddedType(i), depth)
	}
	b.WriteByte('}')
}

func writeSig(b *strings.Builder, sig *types.Signature, depth int) {
	writeTuple(b, sig.Params(), sig.Variadic(), depth)
	if sig.Results().Len() > 0 {
		b.WriteByte(' ')
		writeTuple(b, sig.Results(), false, depth)
	}
}

func writeTuple(b *strings.Builder, t *types.Tuple, variadic bool, depth int) {
	b.WriteByte('(')
	for i := 0; i < t.Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			if s, ok := typ.(*types.Slice); ok {
				b.WriteString("...")
				typ = s.Elem()
			}
		}
		writeType(b, typ, depth)
	}
	b.WriteByte(')')
}

// encodeMethodSets serialises a package's fingerprints for attrMethodSets.
func encodeMethodSets(pkgPath string, sets []methodSet) string {
	var b strings.Builder
	prefix := string(symID(pkgPath + "."))
	for _, ms := range sets {
		kind := "c"
		if ms.iface {
			kind = "i" + ms.free
		} else if ms.ptr != "" {
			kind = "c*" + ms.ptr
		}
		b.WriteString(strings.TrimPrefix(string(ms.id), prefix))
		b.WriteString("\t" + kind + "\t")
		b.WriteString(strings.Join(ms.lines, "\x1f"))
		b.WriteByte('\n')
	}
	return b.String()
}

// decodeMethodSets reverses encodeMethodSets.
func decodeMethodSets(pkgPath, s string) []methodSet {
	var out []methodSet
	for _, line := range strings.Split(s, "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		ms := methodSet{
			id:    symID(pkgPath + "." + parts[0]),
			lines: strings.Split(parts[2], "\x1f"),
		}
		if free, ok := strings.CutPrefix(parts[1], "i"); ok {
			ms.iface, ms.free = true, free
		} else if ptr, ok := strings.CutPrefix(parts[1], "c*"); ok {
			ms.ptr = ptr
		}
		out = append(out, ms)
	}
	return out
}

// implementsEdges computes every (type → interface) pair whose method
// sets satisfy the interface, from fingerprints alone: concrete types, and
// interfaces whose method set includes another's (io.ReadWriter →
// io.Reader; never an interface to itself). A generic interface is
// satisfied by a type satisfying one of its instantiations (see
// methodSets). Sorted.
func implementsEdges(sets []methodSet) []graphdb.Edge {
	// Index types by method line and by method name; an interface's
	// candidates are the types having its rarest exact line, or, when
	// every line mentions a free type parameter, its rarest method name.
	byLine := map[string][]int{}
	byName := map[string][]int{}
	methods := make([]map[string]string, len(sets)) // method name → line
	for i, ms := range sets {
		m := make(map[string]string, len(ms.lines))
		for _, l := range ms.lines {
			name := lineName(l)
			m[name] = l
			byLine[l] = append(byLine[l], i)
			byName[name] = append(byName[name], i)
		}
		methods[i] = m
	}
	var out []graphdb.Edge
	for _, it := range sets {
		if !it.iface {
			continue
		}
		var exact, patterns []string
		for _, l := range it.lines {
			if hasFreeParam(l, it.free) {
				patterns = append(patterns, l)
			} else {
				exact = append(exact, l)
			}
		}
		var cands []int
		for _, l := range exact {
			if cands == nil || len(byLine[l]) < len(cands) {
				cands = byLine[l]
			}
		}
		if len(exact) == 0 {
			for _, l := range patterns {
				if c := byName[lineName(l)]; cands == nil || len(c) < len(cands) {
					cands = c
				}
			}
		}
		bind := make([]string, len(it.free))
		for _, ci := range cands {
			if sets[ci].id == it.id || !hasLines(methods[ci], exact) {
				continue
			}
			clear(bind)
			if matchPatterns(patterns, methods[ci], it.free, bind) {
				out = append(out, graphdb.Edge{From: sets[ci].id, To: it.id, Kind: graphdb.EdgeImplements})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return frontend.EdgeLess(out[i], out[j]) })
	return out
}

// lineName is the method name of a fingerprint line.
func lineName(l string) string {
	if i := strings.IndexByte(l, ' '); i >= 0 {
		return l[:i]
	}
	return l
}

// hasLines reports whether the method set m (name → line) has every line.
func hasLines(m map[string]string, lines []string) bool {
	for _, l := range lines {
		if m[lineName(l)] != l {
			return false
		}
	}
	return true
}

// freeParam reports whether p[i:] starts with a free type parameter of an
// interface ("$k" with free[k] == 'a'), and returns k and its length.
// Constrained parameters are no variables: they match the same text.
func freeParam(p string, i int, free string) (k, n int, ok bool) {
	if p[i] != '$' {
		return 0, 0, false
	}
	n = 1
	for i+n < len(p) && p[i+n] >= '0' && p[i+n] <= '9' {
		k = k*10 + int(p[i+n]-'0')
		n++
		if k >= len(free) {
			return 0, 0, false
		}
	}
	return k, n, n > 1 && free[k] == 'a'
}

func hasFreeParam(l, free string) bool {
	if free == "" {
		return false
	}
	for i := strings.IndexByte(l, '$'); i >= 0; {
		if _, _, ok := freeParam(l, i, free); ok {
			return true
		}
		next := strings.IndexByte(l[i+1:], '$')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// matchPatterns reports whether the method set m has, for every pattern
// line, the line of the same method with the free type parameters
// replaced by types, each parameter by one type throughout (bind, indexed
// by parameter, "" while unbound; left as found).
func matchPatterns(patterns []string, m map[string]string, free string, bind []string) bool {
	if len(patterns) == 0 {
		return true
	}
	l, ok := m[lineName(patterns[0])]
	if !ok {
		return false
	}
	return matchAt(patterns[0], 0, l, 0, free, bind, func() bool {
		return matchPatterns(patterns[1:], m, free, bind)
	})
}

// matchAt matches pattern p from i against line l from j, binding free
// parameters to balanced type texts of l (every way they fit, first to
// last), and calls rest on each complete match until one returns true.
// Fingerprint types are printed unambiguously (results always in
// parentheses, brackets balanced, tags quoted), so a parameter binds to a
// whole type.
func matchAt(p string, i int, l string, j int, free string, bind []string, rest func() bool) bool {
	for i < len(p) {
		k, n, ok := freeParam(p, i, free)
		if !ok {
			if j >= len(l) || p[i] != l[j] {
				return false
			}
			i, j = i+1, j+1
			continue
		}
		if b := bind[k]; b != "" {
			if !strings.HasPrefix(l[j:], b) {
				return false
			}
			i, j = i+n, j+len(b)
			continue
		}
		for _, end := range typeEnds(l, j) {
			if i+n < len(p) && (end == len(l) || l[end] != p[i+n]) {
				continue
			}
			bind[k] = l[j:end]
			if matchAt(p, i+n, l, end, free, bind, rest) {
				bind[k] = ""
				return true
			}
		}
		bind[k] = ""
		return false
	}
	return j == len(l) && rest()
}

// typeEnds returns the offsets after l[j:] where a type text starting at j
// could end: every offset past j at which brackets are balanced, stopping
// at the first unmatched closing bracket or at a comma outside brackets
// (a type never holds one: "int, int" is two parameters, not one type).
func typeEnds(l string, j int) []int {
	var ends []int
	depth := 0
	for e := j; e < len(l); e++ {
		switch l[e] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return ends
			}
		case '"': // a struct tag: skip to its closing quote
			for e++; e < len(l) && l[e] != '"'; e++ {
				if l[e] == '\\' {
					e++
				}
			}
		}
		if depth < 0 {
			break
		}
		if depth == 0 {
			ends = append(ends, e+1)
		}
	}
	return ends
}
