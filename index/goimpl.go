package index

import (
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
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
}

// attrMethodSets is the module-node attribute holding the fingerprints of
// every named type of the package, one type per line:
// "Name\tc|i\tline\x1fline…".
const attrMethodSets = "go.methodsets"

// attrEmbeds is the module-node attribute listing, comma-separated and
// sorted, the other repository packages whose types the package embeds.
const attrEmbeds = "go.embeds"

// methodSets computes the fingerprints of the package-level named types of
// pkg. Aliases, empty interfaces, constraint interfaces and types without
// methods are skipped: they take part in no implements edge.
//
// DESIGN: generic types take part through their generic declaration. A
// type parameter is printed as its position ($0, $1…), so the lines of
// G[T] mentioning no parameter match non-generic interfaces exactly (every
// instantiation of G implements them), and G[E] matches a generic
// interface I[T] when their methods agree with parameters taken by
// position: G[X] implements I[X] for every X. Instantiations with other
// argument orders, and a non-generic type implementing one instantiation
// of a generic interface (IntStack implementing Stack[int]), are not
// found.
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
			ms := methodSet{id: id, iface: true}
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
		ms := methodSet{id: id}
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
		b.WriteString(t.Name())
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
		switch t.Dir() {
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		default:
			b.WriteString("chan ")
		}
		writeType(b, t.Elem(), depth)
	case *types.Signature:
		b.WriteString("func")
		writeSig(b, t, depth)
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil {
			b.WriteString(obj.Pkg().Path() + ".")
		}
		b.WriteString(obj.Name())
		if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() {
			// A local type: its identity is its declaration.
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
	case *types.TypeParam:
		// By position, not name: G[E] and I[T] correspond when their
		// methods use their first type parameter alike (see methodSets).
		b.WriteString("$" + strconv.Itoa(t.Index()))
	case *types.Struct:
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
	case *types.Interface:
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
			kind = "i"
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
		out = append(out, methodSet{
			id:    symID(pkgPath + "." + parts[0]),
			iface: parts[1] == "i",
			lines: strings.Split(parts[2], "\x1f"),
		})
	}
	return out
}

// implementsEdges computes every (type → interface) pair whose method
// sets satisfy the interface, from fingerprints alone: concrete types, and
// interfaces whose method set includes another's (io.ReadWriter →
// io.Reader; never an interface to itself). Sorted.
func implementsEdges(sets []methodSet) []graphdb.Edge {
	// Index types by method line; an interface's candidates are the types
	// having its rarest line.
	byLine := map[string][]int{}
	var ifaces []methodSet
	var concrete []map[string]bool
	var concreteIDs []graphdb.NodeID
	for _, ms := range sets {
		if ms.iface {
			ifaces = append(ifaces, ms)
		}
		set := make(map[string]bool, len(ms.lines))
		for _, l := range ms.lines {
			set[l] = true
			byLine[l] = append(byLine[l], len(concrete))
		}
		concrete = append(concrete, set)
		concreteIDs = append(concreteIDs, ms.id)
	}
	var out []graphdb.Edge
	for _, it := range ifaces {
		rare := ""
		for _, l := range it.lines {
			if rare == "" || len(byLine[l]) < len(byLine[rare]) {
				rare = l
			}
		}
		for _, ci := range byLine[rare] {
			ok := true
			for _, l := range it.lines {
				if !concrete[ci][l] {
					ok = false
					break
				}
			}
			if ok && concreteIDs[ci] != it.id {
				out = append(out, graphdb.Edge{From: concreteIDs[ci], To: it.id, Kind: graphdb.EdgeImplements})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return edgeLess(out[i], out[j]) })
	return out
}
