//go:build cgo

package index

import (
	"slices"
	"strings"
)

// javaVal is the static type of an expression as far as it is evident.
type javaVal struct {
	t      *javaType // a type of the repository
	prim   string    // a primitive, "String" (a literal, String outside the repository), "null"
	dims   int       // array dimensions
	static bool      // the expression names a type (static access)
	known  bool      // the type is evident, possibly outside the repository
	ext    bool      // the value comes from outside the repository, its type not evident
	targs  []string  // type arguments as written (List<Foo>: [Foo])
	tctx   *javaType // the context they were written in
	tsc    *javaScope
}

// javaMethodsKey names one findMethods question.
type javaMethodsKey struct {
	t     *javaType
	name  string
	nargs int
}

// javaMethodSet is the answer to one: the candidates in lookup order and,
// built when first needed, the candidates by parameter key (javaParamKey).
type javaMethodSet struct {
	refs  []javaMethodRef
	byKey map[string][]javaMethodRef
}

// findMethods collects the methods named name of t and its supertypes
// that take nargs arguments; an override hides what it overrides. The
// answer is memoised per file: a file that calls one of 5,000 overloads
// 5,000 times collects them once.
func (l *javaLookup) findMethods(t *javaType, name string, nargs int) *javaMethodSet {
	key := javaMethodsKey{t, name, nargs}
	if ms, ok := l.methods[key]; ok {
		return ms
	}
	ms := &javaMethodSet{}
	seen := map[*javaType]bool{}
	sigs := map[string]bool{}
	queue := []*javaType{t}
	for len(queue) > 0 && len(seen) < 64 {
		c := queue[0]
		queue = queue[1:]
		if c == nil || seen[c] {
			continue
		}
		seen[c] = true
		for _, m := range l.methodsNamed(c, name) {
			if !javaArity(m, nargs) {
				continue
			}
			key := javaParamKey(m.Params)
			if sigs[key] {
				continue
			}
			sigs[key] = true
			ms.refs = append(ms.refs, javaMethodRef{c, m})
		}
		if name != "<init>" {
			queue = append(queue, l.supers(c)...)
		}
	}
	l.methods[key] = ms
	return ms
}

func javaArity(m *javaMethod, n int) bool {
	if m.Varargs {
		return n >= len(m.Params)-1
	}
	return n == len(m.Params)
}

// javaIndexOverloads is the number of candidates from which choose looks
// for an exact match by parameter key before scoring them all.
const javaIndexOverloads = 8

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
func (l *javaLookup) choose(ms *javaMethodSet, args []javaVal) []javaMethodRef {
	cands := ms.refs
	if len(cands) <= 1 {
		return cands
	}
	if len(cands) > javaIndexOverloads {
		if key, ok := javaArgKey(args); ok {
			if ms.byKey == nil {
				ms.byKey = map[string][]javaMethodRef{}
				for _, c := range cands {
					k := javaParamKey(c.m.Params)
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
func (l *javaLookup) best(cands []javaMethodRef, args []javaVal) ([]javaMethodRef, int) {
	best, bestScore := []javaMethodRef(nil), -1
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
			best, bestScore = []javaMethodRef{c}, s
		case s == bestScore:
			best = append(best, c)
		}
	}
	return best, bestScore
}

// javaArgKey is the parameter key (javaParamKey) of a method that takes
// exactly the arguments' types; false when an argument's type is not
// evident or is null.
func javaArgKey(args []javaVal) (string, bool) {
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
			b.WriteString(javaSimple(a.t.Q))
		default:
			return "", false
		}
		b.WriteString(strings.Repeat("[]", a.dims))
	}
	b.WriteByte(')')
	return b.String(), true
}

// score rates how well args fit c's parameters: -1 not applicable.
func (l *javaLookup) score(c javaMethodRef, args []javaVal) int {
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

var javaBoxes = map[string]string{"int": "Integer", "long": "Long", "short": "Short", "byte": "Byte", "char": "Character",
	"boolean": "Boolean", "float": "Float", "double": "Double"}

// javaWidens lists the primitive widening conversions.
var javaWidens = map[string]string{"byte": "short int long float double", "short": "int long float double",
	"char": "int long float double", "int": "long float double", "long": "float double", "float": "double"}

// paramMatch rates one argument against one parameter type as written:
// 3 exact, 2 subtype or widening, 1 boxing or unknown parameter, 0 the
// argument's type is not evident, -1 it does not fit.
func (l *javaLookup) paramMatch(c javaMethodRef, p string, a javaVal) int {
	name, dims := javaErase(p)
	simple := javaSimple(name)
	if javaIsTypeParam(c, name) {
		if dims > 0 && a.known && a.dims < dims && a.prim != "null" {
			return -1
		}
		return 1
	}
	if !a.known {
		return 0
	}
	if a.prim == "null" {
		if dims == 0 && javaPrimitives[name] {
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
		case javaPrimitives[name]:
			if name == a.prim {
				return 3
			}
			if strings.Contains(javaWidens[a.prim], name) {
				return 2
			}
			return -1
		case dims > 0:
			return -1
		case simple == javaBoxes[a.prim] || simple == "Object" || simple == "Number" || simple == "Comparable" || simple == "Serializable":
			return 1
		}
		return -1
	}
	if javaPrimitives[name] {
		if a.t != nil && a.t.Q == "java.lang."+javaBoxes[name] {
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

// javaIsTypeParam reports whether a parameter type names a type variable
// of the method or its class.
func javaIsTypeParam(c javaMethodRef, name string) bool {
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
func (l *javaLookup) retVal(c javaMethodRef, recv javaVal) javaVal {
	if c.m.Name == "<init>" {
		return javaVal{t: c.t, known: true}
	}
	return l.typeVal(c.t.scope, c.t, c.m.Ret, c.m.TParams, recv)
}

// retValArgs is retVal with the method's own type variables that its
// parameters name whole inferred from the arguments (inferred): <T> T
// requireNonNull(T) of a Foo is a Foo, Optional.ofNullable(foo) an
// Optional<Foo>.
func (l *javaLookup) retValArgs(c javaMethodRef, recv javaVal, args []javaVal) javaVal {
	b := l.inferred(c, args)
	if len(b) == 0 {
		return l.retVal(c, recv)
	}
	name, dims := javaErase(c.m.Ret)
	if a, ok := b[name]; ok && dims == 0 && !strings.Contains(c.m.Ret, "<") {
		return a
	}
	v := l.retVal(c, recv)
	if c.t.scope == javaJDKScope && v.t != nil && dims == 0 {
		bound := map[string]string{}
		for n, a := range b {
			if a.t.ID != "" || a.t.scope == javaJDKScope {
				bound[n] = a.t.Q // a qualified name reads the same in any context
			}
		}
		v.targs = javaTypeArgs(c.m.Ret)
		v.tctx, v.tsc = c.t, javaJDKScope
		substJDK(&v, c.t, c.m.TParams, recv, bound)
	}
	return v
}

// inferred binds the method's own type variables that a parameter names
// whole (T, or T of T... for each variable argument) to the arguments'
// type when every such argument has the same evident reference type, as
// javac infers them from the arguments when no target type intervenes.
func (l *javaLookup) inferred(c javaMethodRef, args []javaVal) map[string]javaVal {
	if len(c.m.TParams) == 0 || len(c.m.Params) == 0 {
		return nil
	}
	out, bad := map[string]javaVal{}, map[string]bool{}
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
func (l *javaLookup) typeVal(sc *javaScope, ctx *javaType, w string, mtps []string, recv javaVal) javaVal {
	name, dims := javaErase(w)
	if name == "" || name == "void" {
		return javaVal{}
	}
	if javaPrimitives[name] {
		return javaVal{prim: name, dims: dims, known: true}
	}
	for _, tp := range mtps {
		if tp == name {
			return javaVal{}
		}
	}
	if ctx != nil {
		for i, tp := range ctx.TParams {
			if tp == name {
				if i < len(recv.targs) && recv.tsc != nil {
					a := javaUpperBound(recv.targs[i])
					if a == "" {
						return javaVal{}
					}
					v := l.typeVal(recv.tsc, recv.tctx, a, nil, javaVal{})
					v.dims += dims
					return v
				}
				return javaVal{}
			}
		}
	}
	t := l.resolve(sc, ctx, w)
	v := javaVal{t: t, dims: dims, known: true, targs: javaTypeArgs(w), tctx: ctx, tsc: sc}
	if sc == javaJDKScope && len(v.targs) > 0 {
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
func (l *javaLookup) importedOrLang(sc *javaScope, name string) bool {
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
