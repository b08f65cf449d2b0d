//go:build cgo

package java

import (
	"slices"
	"strings"
)

// value is the static type of an expression as far as it is evident.
type value struct {
	t      *typeDef // a type of the repository
	prim   string   // a primitive, "String" (a literal, String outside the repository), "null"
	dims   int      // array dimensions
	static bool     // the expression names a type (static access)
	known  bool     // the type is evident, possibly outside the repository
	ext    bool     // the value comes from outside the repository, its type not evident
	targs  []string // type arguments as written (List<Foo>: [Foo])
	tctx   *typeDef // the context they were written in
	tsc    *fileScope
}

// methodsKey names one findMethods question.
type methodsKey struct {
	t     *typeDef
	name  string
	nargs int
}

// methodSet is the answer to one: the candidates in lookup order and,
// built when first needed, the candidates by parameter key (paramKey).
type methodSet struct {
	refs  []methodRef
	byKey map[string][]methodRef
}

// findMethods collects the methods named name of t and its supertypes
// that take nargs arguments; an override hides what it overrides. The
// answer is memoised per file: a file that calls one of 5,000 overloads
// 5,000 times collects them once.
func (l *lookup) findMethods(t *typeDef, name string, nargs int) *methodSet {
	key := methodsKey{t, name, nargs}
	if ms, ok := l.methods[key]; ok {
		return ms
	}
	ms := &methodSet{}
	seen := map[*typeDef]bool{}
	sigs := map[string]bool{}
	queue := []*typeDef{t}
	for len(queue) > 0 && len(seen) < 64 {
		c := queue[0]
		queue = queue[1:]
		if c == nil || seen[c] {
			continue
		}
		seen[c] = true
		for _, m := range l.methodsNamed(c, name) {
			if !arity(m, nargs) {
				continue
			}
			key := paramKey(m.Params)
			if sigs[key] {
				continue
			}
			sigs[key] = true
			ms.refs = append(ms.refs, methodRef{c, m})
		}
		if name != "<init>" {
			queue = append(queue, l.supers(c)...)
		}
	}
	l.methods[key] = ms
	return ms
}

func arity(m *methodDef, n int) bool {
	if m.Varargs {
		return n >= len(m.Params)-1
	}
	return n == len(m.Params)
}

// indexOverloads is the number of candidates from which choose looks
// for an exact match by parameter key before scoring them all.
const indexOverloads = 8

// choose picks the overload the arguments select: the applicable methods
// by arity, then by the argument types that are evident; a non-varargs
// method beats a varargs one. Several left: ambiguous (all returned).
//
// DESIGN: scoring every candidate for every call is quadratic in a class
// of thousands of overloads that call each other. Only a candidate whose
// parameter key (erased simple names) equals the arguments' can score
// exact on every argument (3 each, plus the fixed-arity bonus), the
// highest score there is: when the candidates of that key reach it, they
// are the answer, and the others need no scoring. Otherwise (an argument
// not evident, a subtype, a type variable) every candidate is scored.
func (l *lookup) choose(ms *methodSet, args []value) []methodRef {
	cands := ms.refs
	if len(cands) <= 1 {
		return cands
	}
	if len(cands) > indexOverloads {
		if key, ok := argKey(args); ok {
			if ms.byKey == nil {
				ms.byKey = map[string][]methodRef{}
				for _, c := range cands {
					k := paramKey(c.m.Params)
					ms.byKey[k] = append(ms.byKey[k], c)
				}
			}
			if best, score := l.best(ms.byKey[key], args); score == 3*len(args)+1000 {
				return best
			}
		}
	}
	if best, _ := l.best(cands, args); len(best) > 0 {
		return best
	}
	return cands
}

// best returns the candidates of the highest score and the score (-1:
// none applicable).
func (l *lookup) best(cands []methodRef, args []value) ([]methodRef, int) {
	best, bestScore := []methodRef(nil), -1
	for _, c := range cands {
		s := l.score(c, args)
		if s < 0 {
			continue
		}
		if !c.m.Varargs || len(c.m.Params) == len(args) {
			s += 1000 // fixed arity first (JLS 15.12.2 phases 1 and 2)
		}
		switch {
		case s > bestScore:
			best, bestScore = []methodRef{c}, s
		case s == bestScore:
			best = append(best, c)
		}
	}
	return best, bestScore
}

// argKey is the parameter key (paramKey) of a method that takes
// exactly the arguments' types; false when an argument's type is not
// evident or is null.
func argKey(args []value) (string, bool) {
	var b strings.Builder
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case !a.known || a.static || a.prim == "null":
			return "", false
		case a.prim != "":
			b.WriteString(a.prim)
		case a.t != nil:
			b.WriteString(simpleName(a.t.Q))
		default:
			return "", false
		}
		b.WriteString(strings.Repeat("[]", a.dims))
	}
	b.WriteByte(')')
	return b.String(), true
}

// score rates how well args fit c's parameters: -1 not applicable.
func (l *lookup) score(c methodRef, args []value) int {
	total := 0
	for i, a := range args {
		var p string
		switch {
		case i < len(c.m.Params)-1 || !c.m.Varargs && i < len(c.m.Params):
			p = c.m.Params[i]
		case c.m.Varargs && len(args) == len(c.m.Params) && a.dims > 0:
			p = c.m.Params[len(c.m.Params)-1]
		default:
			p = strings.TrimSuffix(c.m.Params[len(c.m.Params)-1], "...")
		}
		s := l.paramMatch(c, p, a)
		if s < 0 {
			return -1
		}
		total += s
	}
	return total
}

var boxes = map[string]string{"int": "Integer", "long": "Long", "short": "Short", "byte": "Byte", "char": "Character",
	"boolean": "Boolean", "float": "Float", "double": "Double"}

// widens lists the primitive widening conversions.
var widens = map[string]string{"byte": "short int long float double", "short": "int long float double",
	"char": "int long float double", "int": "long float double", "long": "float double", "float": "double"}

// paramMatch rates one argument against one parameter type as written:
// 3 exact, 2 subtype or widening, 1 boxing or unknown parameter, 0 the
// argument's type is not evident, -1 it does not fit.
func (l *lookup) paramMatch(c methodRef, p string, a value) int {
	name, dims := erase(p)
	simple := simpleName(name)
	if isTypeParam(c, name) {
		if dims > 0 && a.known && a.dims < dims && a.prim != "null" {
			return -1
		}
		return 1
	}
	if !a.known {
		return 0
	}
	if a.prim == "null" {
		if dims == 0 && primitives[name] {
			return -1
		}
		return 1
	}
	if a.dims != dims {
		if dims == 0 && (simple == "Object" || simple == "Cloneable" || simple == "Serializable") {
			return 1
		}
		return -1
	}
	if a.prim != "" && a.prim != "String" {
		switch {
		case primitives[name]:
			if name == a.prim {
				return 3
			}
			if strings.Contains(widens[a.prim], name) {
				return 2
			}
			return -1
		case dims > 0:
			return -1
		case simple == boxes[a.prim] || simple == "Object" || simple == "Number" || simple == "Comparable" || simple == "Serializable":
			return 1
		}
		return -1
	}
	if primitives[name] {
		if a.t != nil && a.t.Q == "java.lang."+boxes[name] {
			return 1
		}
		return -1
	}
	pt := l.resolve(c.t.scope, c.t, p)
	if pt == nil {
		switch {
		case simple == "Object":
			return 2
		case a.prim == "String" && simple == "String":
			return 3
		case a.prim == "String" && simple == "CharSequence":
			return 2
		}
		return 1
	}
	if a.t == nil {
		if a.prim == "String" {
			return -1 // String is outside the repository, pt inside
		}
		return 0
	}
	if a.t == pt {
		return 3
	}
	if l.isSubtype(a.t, pt) {
		return 2
	}
	return -1
}

// isTypeParam reports whether a parameter type names a type variable
// of the method or its class.
func isTypeParam(c methodRef, name string) bool {
	for _, tp := range c.m.TParams {
		if tp == name {
			return true
		}
	}
	for t := c.t; t != nil; t = t.outer {
		for _, tp := range t.TParams {
			if tp == name {
				return true
			}
		}
		if t.outer == nil {
			break
		}
	}
	return false
}

// retVal is the type of a call of c on a receiver of type recv.
func (l *lookup) retVal(c methodRef, recv value) value {
	if c.m.Name == "<init>" {
		return value{t: c.t, known: true}
	}
	return l.typeVal(c.t.scope, c.t, c.m.Ret, c.m.TParams, recv)
}

// retValArgs is retVal with the method's own type variables that its
// parameters name whole inferred from the arguments (inferred): <T> T
// requireNonNull(T) of a Foo is a Foo, Optional.ofNullable(foo) an
// Optional<Foo>.
func (l *lookup) retValArgs(c methodRef, recv value, args []value) value {
	b := l.inferred(c, args)
	if len(b) == 0 {
		return l.retVal(c, recv)
	}
	name, dims := erase(c.m.Ret)
	if a, ok := b[name]; ok && dims == 0 && !strings.Contains(c.m.Ret, "<") {
		return a
	}
	v := l.retVal(c, recv)
	if c.t.scope == jdkScope && v.t != nil && dims == 0 {
		bound := map[string]string{}
		for n, a := range b {
			if a.t.ID != "" || a.t.scope == jdkScope {
				bound[n] = a.t.Q // a qualified name reads the same in any context
			}
		}
		v.targs = typeArgs(c.m.Ret)
		v.tctx, v.tsc = c.t, jdkScope
		substJDK(&v, c.t, c.m.TParams, recv, bound)
	}
	return v
}

// inferred binds the method's own type variables that a parameter names
// whole (T, or T of T... for each variable argument) to the arguments'
// type when every such argument has the same evident reference type, as
// javac infers them from the arguments when no target type intervenes.
func (l *lookup) inferred(c methodRef, args []value) map[string]value {
	if len(c.m.TParams) == 0 || len(c.m.Params) == 0 {
		return nil
	}
	out, bad := map[string]value{}, map[string]bool{}
	for i, a := range args {
		p := strings.TrimSpace(c.m.Params[min(i, len(c.m.Params)-1)])
		if c.m.Varargs && i >= len(c.m.Params)-1 {
			if len(args) == len(c.m.Params) && a.dims > 0 {
				continue // an array passed as the variable arguments
			}
			p = strings.TrimSuffix(p, "...")
		}
		if !slices.Contains(c.m.TParams, p) {
			continue
		}
		if prev, ok := out[p]; a.t == nil || a.dims > 0 || a.static || ok && prev.t != a.t {
			bad[p] = true
			continue
		}
		out[p] = a
	}
	for n := range bad {
		delete(out, n)
	}
	return out
}

// typeVal is the value of a type as written in ctx, substituting the
// class's type variables with the receiver's type arguments.
func (l *lookup) typeVal(sc *fileScope, ctx *typeDef, w string, mtps []string, recv value) value {
	name, dims := erase(w)
	if name == "" || name == "void" {
		return value{}
	}
	if primitives[name] {
		return value{prim: name, dims: dims, known: true}
	}
	for _, tp := range mtps {
		if tp == name {
			return value{}
		}
	}
	if ctx != nil {
		for i, tp := range ctx.TParams {
			if tp == name {
				if i < len(recv.targs) && recv.tsc != nil {
					a := upperBound(recv.targs[i])
					if a == "" {
						return value{}
					}
					v := l.typeVal(recv.tsc, recv.tctx, a, nil, value{})
					v.dims += dims
					return v
				}
				return value{}
			}
		}
	}
	t := l.resolve(sc, ctx, w)
	v := value{t: t, dims: dims, known: true, targs: typeArgs(w), tctx: ctx, tsc: sc}
	if sc == jdkScope && len(v.targs) > 0 {
		substJDK(&v, ctx, mtps, recv, nil)
	}
	if t == nil && !strings.Contains(name, ".") && !l.importedOrLang(sc, name) {
		v.known = l.known(sc, name)
	}
	if t == nil && (name == "String" || name == "java.lang.String") {
		v.prim = "String"
	}
	return v
}

// importedOrLang reports whether a simple type name outside the repository
// is evident: imported by name, or a java.lang type that is commonly used.
func (l *lookup) importedOrLang(sc *fileScope, name string) bool {
	if _, ok := sc.Imports[name]; ok {
		return true
	}
	switch name {
	case "String", "Object", "Integer", "Long", "Boolean", "Character", "Byte", "Short", "Double", "Float",
		"StringBuilder", "Class", "Thread", "Throwable", "Exception", "RuntimeException", "Error", "Math", "System":
		return true
	}
	return false
}
