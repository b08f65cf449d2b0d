//go:build cgo

package python

import (
	"strconv"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// DESIGN: Python value types. A call `o.pay()` resolves when the class of
// o is known. Extraction records, per name, how its value is obtained as a
// small "value expression" (vexpr), resolved only at link time when every
// module's scope is known:
//
//	a:T     an instance of the annotated type T (Optional[T], T | None and
//	        string annotations reduce to T; list[T], Sequence[T], ... to
//	        "[]T", whose elements are T)
//	v:E     the value of the dotted expression E, whose parts may be calls:
//	        "Order()", "make_order()", "o", "self.repo.get()"
//	e:E     an element of the iterable E (`for x in xs`); E may be an l:
//	l:E1,E2 a list, tuple, set or dict literal whose elements (values) are
//	        one of E1, E2 (values.go)
//	f:I:X   the I-th field of the NamedTuple instance X yields when unpacked
//	        (`for text, style in segments`, `a, b = seg`)
//	u:X|Y   one of the vexprs X, Y: a name bound more than once, or
//	        `a if c else b`, `a or b`; it resolves when the alternatives
//	        that resolve agree (as Pyright reports calls on the known part
//	        of a union)
//	?       something the indexer cannot follow: never resolved
//
// Function locals (decl.types), module variables (moduleScope.vars), class
// and instance attributes (classInfo.attrs: class-body assignments and
// annotations, `self.x = ...` in any method) and return values
// (symbol.ret, classInfo.rets: the annotation, else the union of what the
// return statements return) each hold one vexpr per name. The analysis is
// flow-insensitive: a name rebound to a different value is a union,
// `x = None` does not count. Values stored on class attributes and returns must not
// depend on the function's locals (portable), since they are resolved in
// the module's scope. The symbolTable evaluates a vexpr to a evalValue; evaluation
// is depth-bounded, so cycles (x = x.next()) end unresolved.
const unknownType = "?"

// bindType records ty for name in m; a second, different binding makes it
// unknown.
func bindType(m map[string]string, name, ty string) {
	if ty == "" {
		ty = unknownType
	}
	if old, ok := m[name]; ok && old != ty {
		ty = unionOf(old, ty)
	}
	m[name] = ty
}

// unionOf joins vexprs into a union, "?" when it grows past 8.
func unionOf(tys ...string) string {
	var alts []string
	seen := map[string]bool{}
	for _, t := range tys {
		parts := []string{t}
		if strings.HasPrefix(t, "u:") {
			parts = strings.Split(t[2:], "|")
		}
		for _, p := range parts {
			if p != "" && !seen[p] {
				seen[p] = true
				alts = append(alts, p)
			}
		}
	}
	switch {
	case len(alts) == 0 || len(alts) > 8:
		return unknownType
	case len(alts) == 1:
		return alts[0]
	}
	return "u:" + strings.Join(alts, "|")
}

// normAnn reduces an annotation's text to a dotted class name, "[]T" for
// an iterable of T, or "" when it names no single class.
func normAnn(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if alts := splitTop(s, '|'); len(alts) > 1 {
		return oneNotNone(alts)
	}
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if isDottedName(s) && s != "None" {
			return s
		}
		return ""
	}
	if !strings.HasSuffix(s, "]") {
		return ""
	}
	head, args := s[:open], splitTop(s[open+1:len(s)-1], ',')
	switch head[strings.LastIndexByte(head, '.')+1:] {
	case "Optional", "ClassVar", "Final", "Annotated", "Required", "NotRequired", "ReadOnly":
		return normAnn(args[0])
	case "Union":
		return oneNotNone(args)
	case "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
		"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet", "deque", "Deque",
		"Generator", "AsyncIterator", "AsyncIterable", "Reversible":
		if e := normAnn(args[0]); e != "" && !strings.HasPrefix(e, "[]") {
			return "[]" + e
		}
	case "tuple", "Tuple":
		if len(args) == 2 && strings.TrimSpace(args[1]) == "..." {
			if e := normAnn(args[0]); e != "" && !strings.HasPrefix(e, "[]") {
				return "[]" + e
			}
		}
	}
	return ""
}

func oneNotNone(alts []string) string {
	var keep []string
	for _, a := range alts {
		if strings.TrimSpace(a) != "None" {
			keep = append(keep, a)
		}
	}
	if len(keep) != 1 {
		return ""
	}
	return normAnn(keep[0])
}

// splitTop splits s at sep outside brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func isDottedName(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" {
			return false
		}
		for i, r := range p {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' && i > 0 || r > 127) {
				return false
			}
		}
	}
	return true
}

// annType is the vexpr of an annotation node ("" when there is none).
func (x *extractor) annType(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	if t := normAnn(x.text(n)); t != "" {
		return "a:" + t
	}
	return unknownType
}

// valueType is the vexpr of an expression assigned to a name; "" for None
// (ignored), "?" for what is not followed.
func (x *extractor) valueType(n *sitter.Node) string {
	if n == nil {
		return unknownType
	}
	switch n.Kind() {
	case "none":
		return ""
	case "conditional_expression", "boolean_operator":
		if n.Kind() == "boolean_operator" {
			if op := fieldChild(n, "operator"); op == nil || x.text(op) != "or" {
				return unknownType
			}
		}
		var alts []string
		for i, c := range sitter.Children(n) {
			if n.Kind() == "conditional_expression" && i == 1 {
				continue // the condition
			}
			if v := x.valueType(c); v != "" {
				alts = append(alts, v)
			}
		}
		if len(alts) == 0 {
			return ""
		}
		return unionOf(alts...)
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return x.valueType(n.NamedChild(0))
		}
	case "list", "tuple", "set", "dictionary":
		return x.containerType(n)
	}
	if n.Kind() == "call" {
		if e := x.dotted(fieldChild(n, "function")); e != "" && !strings.HasPrefix(e, "super(") {
			return "v:" + e + "()"
		}
		return unknownType
	}
	if e := x.dotted(n); e != "" && !strings.HasPrefix(e, "super(") {
		return "v:" + e
	}
	return unknownType
}

// portable returns ty when it does not depend on d's locals (self and cls
// excepted), the local's own vexpr when ty is just that local, else "?".
func portable(d *decl, ty string, depth int) string {
	if d == nil || ty == "" || ty == unknownType || strings.HasPrefix(ty, "a:") {
		return ty
	}
	if strings.HasPrefix(ty, "u:") {
		var alts []string
		for _, a := range strings.Split(ty[2:], "|") {
			alts = append(alts, portable(d, a, depth))
		}
		return unionOf(alts...)
	}
	if strings.HasPrefix(ty, "f:") {
		i, inner, _ := strings.Cut(ty[2:], ":")
		if p := portable(d, inner, depth); p != unknownType && !strings.HasPrefix(p, "u:") {
			return "f:" + i + ":" + p
		}
		return unknownType
	}
	if strings.HasPrefix(ty, "l:") || strings.HasPrefix(ty, "e:l:") {
		items, _ := strings.CutPrefix(ty, "e:")
		var alts []string
		for _, a := range strings.Split(items[2:], ",") {
			if p := portable(d, a, depth); p != unknownType && !strings.HasPrefix(p, "u:") {
				alts = append(alts, p)
			}
		}
		if len(alts) == 0 {
			return unknownType
		}
		return ty[:len(ty)-len(items)] + "l:" + strings.Join(alts, ",")
	}
	e := ty[2:]
	head, _, _ := strings.Cut(e, ".")
	head = strings.TrimSuffix(head, "()")
	switch {
	case head == "self" || head == "cls":
		return ty
	case d.imports[head] != "":
		return unknownType // an import inside the function: not visible at module level
	case !d.locals[head]:
		return ty
	case e == head && ty[0] == 'v' && depth < 4:
		return portable(d, d.types[head], depth+1)
	}
	return unknownType
}

// returnType infers the vexpr a function returns: its annotation, else the
// value all its own return statements return (collected by locals).
func (x *extractor) returnType(def *sitter.Node, d *decl) string {
	if rt := fieldChild(def, "return_type"); rt != nil {
		if t := x.annType(rt); t != unknownType {
			return t
		}
		return ""
	}
	var alts []string
	for _, r := range d.returns {
		if v := portable(d, r, 0); v != "" { // not a bare return or None
			alts = append(alts, v)
		}
	}
	if ty := unionOf(alts...); ty != unknownType {
		return ty
	}
	return ""
}

// assignTypes records the vexprs of an assignment's targets: plain names
// in names, `self.x` targets in attrs (when attrs is non-nil).
func (x *extractor) assignTypes(n *sitter.Node, d *decl, names, attrs map[string]string) {
	left := fieldChild(n, "left")
	if left == nil {
		return
	}
	ty := ""
	if t := fieldChild(n, "type"); t != nil {
		ty = x.annType(t)
	} else if n.Kind() == "assignment" {
		right := fieldChild(n, "right")
		if right != nil && right.Kind() == "assignment" { // a = b = f()
			x.assignTypes(right, d, names, attrs)
			right = fieldChild(right, "right")
		}
		ty = x.valueType(right)
		if ty == "" {
			return
		}
	} else {
		return // augmented assignment keeps the type
	}
	switch left.Kind() {
	case "identifier":
		bindType(names, x.text(left), ty)
	case "attribute":
		obj := fieldChild(left, "object")
		if attrs != nil && obj != nil && obj.Kind() == "identifier" && x.text(obj) == "self" {
			bindType(attrs, x.text(fieldChild(left, "attribute")), portable(d, ty, 0))
		}
	default:
		x.bindTarget(names, left, ty)
	}
}

// typedAttrs encodes name → vexpr as "name\tvexpr" lines, skipping unknowns.
func typedAttrs(m map[string]string) string {
	var out []string
	for _, k := range frontend.SortedKeys(m) {
		if v := m[k]; v != "" && v != unknownType {
			out = append(out, k+"\t"+v)
		}
	}
	return strings.Join(out, "\n")
}

func parseTypedAttrs(s string) map[string]string {
	m := map[string]string{}
	for _, l := range frontend.SplitLines(s) {
		if k, v, ok := strings.Cut(l, "\t"); ok {
			m[k] = v
		}
	}
	return m
}

// evalCtx is where a vexpr is evaluated: a module's scope, the enclosing
// function's locals (nil outside functions) and the enclosing class.
type evalCtx struct {
	scope *moduleScope
	decl  *decl
	class string
}

// evalValue is what evaluation yields: a module, a class, an instance of a
// class, a function (with its return vexpr and where to evaluate it), or
// an iterable whose elements have annotation elem.
type evalValue struct {
	mod     *moduleScope
	cls     *classInfo
	inst    bool
	fn      graphdb.NodeID
	ret     string
	retCtx  evalCtx
	elem    string
	elemCtx evalCtx
	// a container literal: its element vexprs ("E1,E2"), where to
	// evaluate them, and the container method read from it (get, values…)
	items    string
	itemsCtx evalCtx
	method   string
	alts     []evalValue // one of several values: the elements of a container
}

// memoKey names an evaluation outside functions (module variables,
// attributes, returns), which many calls share.
type memoKey struct {
	scope     *moduleScope
	class, ty string
}

type memoVal struct {
	v  evalValue
	ok bool
}

// evalType evaluates a vexpr; outside functions the result is memoized.
func (t *symbolTable) evalType(c evalCtx, ty string, depth int) (evalValue, bool) {
	if c.decl != nil {
		return t.evalType1(c, ty, depth)
	}
	k := memoKey{c.scope, c.class, ty}
	if m, ok := t.memo[k]; ok {
		return m.v, m.ok
	}
	v, ok := t.evalType1(c, ty, depth)
	if depth <= 1 || ok { // a failure deep in a chain may be the depth bound only
		if t.memo == nil {
			t.memo = map[memoKey]memoVal{}
		}
		t.memo[k] = memoVal{v, ok}
	}
	return v, ok
}

func (t *symbolTable) evalType1(c evalCtx, ty string, depth int) (evalValue, bool) {
	if depth > maxDepth || len(ty) < 3 || ty[1] != ':' {
		return evalValue{}, false
	}
	switch ty[0] {
	case 'l':
		return evalValue{items: ty[2:], itemsCtx: c}, true
	case 'f':
		i, inner, _ := strings.Cut(ty[2:], ":")
		k, err := strconv.Atoi(i)
		v, ok := t.evalType(c, inner, depth+1)
		if err != nil || !ok || !v.inst || v.cls == nil {
			return evalValue{}, false
		}
		for _, cls := range t.mro(v.cls) {
			if len(cls.fields) > 0 {
				if k >= len(cls.fields) {
					return evalValue{}, false
				}
				return t.attr(v, cls.fields[k], depth+1)
			}
		}
		return evalValue{}, false
	case 'a':
		if strings.HasPrefix(ty, "a:[]") {
			return evalValue{elem: ty[4:], elemCtx: c}, true
		}
		v, ok := t.evalExpr(c, ty[2:], depth+1)
		if !ok || v.cls == nil || v.inst {
			return evalValue{}, false
		}
		return evalValue{cls: v.cls, inst: true}, true
	case 'v':
		return t.evalExpr(c, ty[2:], depth+1)
	case 'u':
		var out evalValue
		found := false
		for _, a := range strings.Split(ty[2:], "|") {
			v, ok := t.evalType(c, a, depth+1)
			switch {
			case !ok:
			case !found:
				out, found = v, true
			case v.cls != out.cls || v.inst != out.inst || v.fn != out.fn || v.mod != out.mod ||
				v.items != "" || out.items != "" || len(v.alts) > 0 || len(out.alts) > 0:
				return evalValue{}, false // alternatives disagree
			}
		}
		return out, found
	case 'e':
		var v evalValue
		var ok bool
		if strings.HasPrefix(ty, "e:l:") {
			v, ok = t.evalType(c, ty[2:], depth+1)
		} else {
			v, ok = t.evalExpr(c, ty[2:], depth+1)
		}
		if !ok || v.method != "" {
			return evalValue{}, false
		}
		return t.elements(v, depth)
	}
	return evalValue{}, false
}

// evalExpr evaluates a dotted expression whose parts may be calls.
func (t *symbolTable) evalExpr(c evalCtx, e string, depth int) (evalValue, bool) {
	if depth > maxDepth || c.scope == nil {
		return evalValue{}, false
	}
	parts := strings.Split(e, ".")
	base, ops := suffixes(parts[0])
	v, ok := t.name(c, base, depth)
	v, ok = t.apply(v, ok, ops, depth)
	for _, p := range parts[1:] {
		if !ok {
			return evalValue{}, false
		}
		base, ops := suffixes(p)
		v, ok = t.attr(v, base, depth)
		v, ok = t.apply(v, ok, ops, depth)
	}
	return v, ok
}

// suffixes splits a part of a dotted expression into its name and the
// calls "()" and subscripts "[]" applied to it ("get()[]" → "get", "()[]").
func suffixes(p string) (name, ops string) {
	i := len(p)
	for i >= 2 && (p[i-2:i] == "()" || p[i-2:i] == "[]") {
		i -= 2
	}
	return p[:i], p[i:]
}

// apply applies the calls and subscripts ops to v, in order.
func (t *symbolTable) apply(v evalValue, ok bool, ops string, depth int) (evalValue, bool) {
	for ; ok && ops != ""; ops = ops[2:] {
		if ops[:2] == "()" {
			v, ok = t.call(v, depth)
		} else if v.method == "" {
			v, ok = t.elements(v, depth)
		} else {
			ok = false
		}
	}
	return v, ok
}

// name evaluates a plain name: self and cls in a class, the function's
// locals and imports, then the module's scope (definitions, imports,
// variables, star imports).
func (t *symbolTable) name(c evalCtx, name string, depth int) (evalValue, bool) {
	if c.class != "" && (name == "self" || name == "cls") {
		cls := t.classOf(c.scope.module, c.class)
		if cls == nil {
			return evalValue{}, false
		}
		return evalValue{cls: cls, inst: name == "self"}, true
	}
	if d := c.decl; d != nil {
		if ty := d.types[name]; ty != "" {
			return t.evalType(c, ty, depth+1)
		}
		if imp := d.imports[name]; imp != "" {
			return t.absVal(strings.Split(imp, "."), depth+1)
		}
		if d.locals[name] {
			return evalValue{}, false
		}
	}
	s := c.scope
	if sym, ok := s.defs[name]; ok {
		if sym.cls != nil {
			return evalValue{cls: sym.cls}, true
		}
		return evalValue{fn: sym.id, ret: sym.ret, retCtx: evalCtx{scope: s}}, true
	}
	if imp, ok := s.imports[name]; ok {
		return t.absVal(strings.Split(imp, "."), depth+1)
	}
	if ty, ok := s.vars[name]; ok {
		return t.evalType(evalCtx{scope: s}, ty, depth+1)
	}
	for _, star := range s.stars {
		if ms := t.mods[star]; ms != nil && ms != s {
			if v, ok := t.name(evalCtx{scope: ms}, name, depth+1); ok {
				return v, true
			}
		}
	}
	return evalValue{}, false
}

// absVal evaluates an absolute dotted name: the longest prefix that is a
// module, then attributes.
func (t *symbolTable) absVal(parts []string, depth int) (evalValue, bool) {
	for i := len(parts); i >= 1; i-- {
		ms := t.mods[strings.Join(parts[:i], ".")]
		if ms == nil {
			continue
		}
		v, ok := evalValue{mod: ms}, true
		for _, p := range parts[i:] {
			if v, ok = t.attr(v, p, depth); !ok {
				break
			}
		}
		if ok || parts[0] != "__init__" {
			return v, ok
		}
		break
	}
	if len(parts) > 1 && parts[0] == "__init__" && depth <= maxDepth {
		return t.absVal(parts[1:], depth+1) // as symbolTable.abs
	}
	return evalValue{}, false
}

// attr evaluates v.name: a module's name, a method found through the MRO,
// or a class or instance attribute whose value is known.
func (t *symbolTable) attr(v evalValue, name string, depth int) (evalValue, bool) {
	if depth > maxDepth {
		return evalValue{}, false
	}
	switch {
	case v.items != "" && v.method == "":
		if containerMethods[name] {
			v.method = name
			return v, true
		}
	case v.mod != nil:
		return t.name(evalCtx{scope: v.mod}, name, depth+1)
	case v.cls != nil:
		if id, owner, ok := t.methodOf(v.cls, name, false); ok {
			fn := evalValue{fn: id, ret: owner.rets[name], retCtx: evalCtx{scope: t.mods[owner.module], class: owner.qname}}
			if v.inst && owner.props[name] {
				return t.call(fn, depth) // reading a property is its getter's value
			}
			return fn, true
		}
		for _, k := range t.mro(v.cls) {
			if ty, ok := k.attrs[name]; ok {
				return t.evalType(evalCtx{scope: t.mods[k.module], class: k.qname}, ty, depth+1)
			}
		}
	}
	return evalValue{}, false
}

// call evaluates calling v: a class gives an instance, a function its
// return value.
func (t *symbolTable) call(v evalValue, depth int) (evalValue, bool) {
	switch {
	case v.method == "get" || v.method == "pop":
		v.method = ""
		return t.elements(v, depth)
	case v.method != "":
		v.method = ""
		return v, true // values(), copy(): the elements again
	case v.cls != nil && !v.inst:
		return evalValue{cls: v.cls, inst: true}, true
	case v.fn != "" && v.ret != "" && v.retCtx.scope != nil:
		return t.evalType(v.retCtx, v.ret, depth+1)
	}
	return evalValue{}, false
}

// typedTargets resolves a call through values' types: what a function or
// method value names, a class's __new__ and __init__ (or the class), an
// instance's __call__.
func (t *symbolTable) typedTargets(r reference) []graphdb.NodeID {
	s := t.mods[r.module]
	if s == nil {
		return nil
	}
	v, ok := t.evalExpr(evalCtx{scope: s, decl: r.decl, class: r.class}, r.expr, 0)
	if !ok {
		return nil
	}
	return t.callTargets(v)
}

// construct is what calling class c calls: __new__ when defined, __init__
// (inherited included), else the class itself.
func (t *symbolTable) construct(c *classInfo) []graphdb.NodeID {
	var out []graphdb.NodeID
	if id, _, ok := t.methodOf(c, "__new__", false); ok {
		out = append(out, id)
	}
	if id, _, ok := t.methodOf(c, "__init__", false); ok {
		out = append(out, id)
	}
	if len(out) == 0 {
		out = append(out, c.id)
	}
	return out
}

// keeps are decorators, by their last name, known to leave a function
// callable as written (or, for property, called through attribute reads).
var keeps = map[string]bool{
	"staticmethod": true, "classmethod": true, "property": true, "setter": true, "getter": true,
	"deleter": true, "abstractmethod": true, "override": true, "final": true, "no_type_check": true,
}

// fnInfo is what extraction knows of whether calls of def reach its body:
// its decorators other than keeps, and whether it returns its first
// parameter unchanged or a function nested in it; and the calls of its
// parameters, which calls passing it functions resolve (method: def is a
// method, whose first parameter the call does not bind unless static).
func (x *extractor) fnInfo(def *sitter.Node, decs []*sitter.Node, d *decl, method bool) fnInfo {
	var f fnInfo
	static := false
	for _, dec := range decs {
		e := x.decoratorExpr(dec)
		static = static || e == "staticmethod"
		if e == "" || dec.NamedChildCount() > 0 && dec.NamedChild(0).Kind() == "call" {
			continue // @factory(args): what it returns is not followed
		}
		if !keeps[e[strings.LastIndexByte(e, '.')+1:]] {
			f.decos = append(f.decos, e)
		}
	}
	if len(d.pcalls) > 0 {
		f.pcalls, f.params = d.pcalls, x.paramList(def, method && !static)
	}
	if p := fieldChild(def, "parameters"); p != nil && p.NamedChildCount() > 0 && len(d.returns) > 0 {
		first := p.NamedChild(0)
		if first.Kind() == "typed_parameter" && first.NamedChildCount() > 0 {
			first = first.NamedChild(0)
		}
		if first.Kind() == "identifier" {
			f.identity = true
			for _, r := range d.returns {
				if r != "v:"+x.text(first) && !(strings.HasPrefix(r, "v:") && d.nested[r[2:]]) {
					f.identity = false
				}
			}
		}
	}
	return f
}

// bindTarget binds the names of an assignment or loop target to ty: a
// plain name to ty, the names of a flat tuple or list pattern to the
// fields ty unpacks into ("f:I:ty", resolved when ty is a NamedTuple
// instance), anything else to unknown.
func (x *extractor) bindTarget(names map[string]string, left *sitter.Node, ty string) {
	switch left.Kind() {
	case "identifier":
		bindType(names, x.text(left), ty)
		return
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list":
		for _, c := range sitter.Children(left) {
			if c.Kind() == "list_splat_pattern" || c.Kind() == "list_splat" {
				ty = unknownType // a, *rest, b: positions after the splat are unknown
			}
		}
		for i, c := range sitter.Children(left) {
			if c.Kind() != "identifier" {
				continue
			}
			if ty == "" || ty == unknownType || strings.HasPrefix(ty, "u:") || strings.HasPrefix(ty, "l:") {
				bindType(names, x.text(c), unknownType)
			} else {
				bindType(names, x.text(c), "f:"+strconv.Itoa(i)+":"+ty)
			}
		}
		return
	}
	for _, c := range sitter.Children(left) {
		if c.Kind() == "identifier" {
			bindType(names, x.text(c), unknownType)
		}
	}
}

// namedTupleFields lists the fields of a class deriving from NamedTuple
// (annotated names of its body, in order); nil for other classes.
func (x *extractor) namedTupleFields(def *sitter.Node, bases []string) []string {
	named := false
	for _, b := range bases {
		named = named || b == "NamedTuple" || strings.HasSuffix(b, ".NamedTuple")
	}
	body := fieldChild(def, "body")
	if !named || body == nil {
		return nil
	}
	var out []string
	for _, st := range sitter.Children(body) {
		if st.Kind() != "expression_statement" || st.NamedChildCount() == 0 {
			continue
		}
		a := st.NamedChild(0)
		if a.Kind() == "assignment" && fieldChild(a, "type") != nil && fieldChild(a, "left") != nil && fieldChild(a, "left").Kind() == "identifier" {
			out = append(out, x.text(fieldChild(a, "left")))
		}
	}
	return out
}
