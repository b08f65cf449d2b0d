// Package javacheck checks relay's Java call edges against the compiler:
// the invoke* instructions of `javap -c -p -l` on the compiled classes
// are the truth for each call site. It owns the comparison only; its tests
// run it on a fixture compiled with javac and, behind
// RELAY_JAVACHECK_JAVA_BASE, on the JDK's own java.base sources against
// the runtime image's classes.
//
// DESIGN: the comparison is by call site, not by caller: a truth entry is
// (source file, line, callee) with the line from the method's line number
// table, and relay's calls edges carry the same site. That needs no
// mapping of compiler-made methods (lambda$run$0, Outer$1.run, field
// initialisers copied into every <init>) back to the declaration relay
// attributes their calls to; the golden tests check the attribution. The
// callee named by the instruction (the receiver's static type and the
// descriptor) is resolved as the JVM does: the class's method of that
// name and parameter types, else its superclasses', else its
// interfaces'. Only callees that resolve to a relay node are compared
// (the code base's own methods); instructions whose class is in the code
// base but whose method relay has no node for (implicit record accessors,
// enum values/valueOf, compiler-made methods) are counted as unmapped and
// left out. Bridge methods and the enum methods the compiler writes are
// skipped; invokedynamic (lambdas, string concatenation) has no callee.
// Calls javac writes that no source text names (the callee's name is not
// on the line: iterators of enhanced for, close() of try-with-resources,
// boxing, StringBuilder concatenation) are left out of the main score,
// together with relay's edges that match them, and counted in
// Result.All, which scores every call site.
package javacheck

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// Options says what to compare.
type Options struct {
	Root      string   // the indexed tree (to read the source lines)
	Javap     string   // the javap binary
	Module    string   // read the classes from this runtime-image module (java.base)
	Classpath string   // or from this directory
	Classes   []string // binary names of the classes to read
}

// Score counts call sites.
type Score struct {
	Truth, Relay, Hit int
	Near              int // hits on nearby lines (nearLines)
	Unmapped          int // instructions whose callee relay has no node for
	Implicit          int // instructions for no call written in the source (implicit)
}

func (s Score) Precision() float64 { return float64(s.Hit) / float64(max(s.Relay, 1)) }
func (s Score) Recall() float64    { return float64(s.Hit) / float64(max(s.Truth, 1)) }

func (s Score) String() string {
	return fmt.Sprintf("truth %d relay %d hit %d (%d on a nearby line): precision %.4f recall %.4f (left out: %d implicit, %d unmapped)",
		s.Truth, s.Relay, s.Hit, s.Near, s.Precision(), s.Recall(), s.Implicit, s.Unmapped)
}

// Result is the score with the differences.
type Result struct {
	Score
	// All counts javac's implicit calls too (Implicit is 0 there): the
	// iterator calls of enhanced for and the close() of try-with-resources
	// are in the graph, the others (string concatenation, boxing, assert,
	// switch on strings and enums) are misses.
	All       Score
	AllMisses []string // the call sites relay lacks, implicit ones included
	Misses    []string // in the truth, not in relay
	Wrong     []string // in relay, not in the truth
	Unmapped  []string
}

// Store is what Check reads.
type Store interface {
	graphdb.Scanner
}

// graph is relay's Java graph as the check needs it.
type graph struct {
	types   map[string]graphdb.Node           // by QName
	members map[graphdb.NodeID][]graphdb.Node // by parent type
	supers  map[graphdb.NodeID][]graphdb.NodeID
	calls   map[call]bool
}

// call is one of relay's calls edges.
type call struct {
	file string
	line int
	to   graphdb.NodeID
}

func load(ctx context.Context, st Store) (*graph, error) {
	g := &graph{types: map[string]graphdb.Node{}, members: map[graphdb.NodeID][]graphdb.Node{},
		supers: map[graphdb.NodeID][]graphdb.NodeID{}, calls: map[call]bool{}}
	nodes := map[graphdb.NodeID]graphdb.Node{}
	err := st.ScanNodes(ctx, func(_ string, n graphdb.Node) error {
		if n.Language != "java" {
			return nil
		}
		nodes[n.ID] = n
		if n.Kind == graphdb.KindType {
			g.types[n.QName] = n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan nodes: %w", err)
	}
	err = st.ScanEdges(ctx, func(_ string, e graphdb.Edge) error {
		switch e.Kind {
		case graphdb.EdgeParent:
			if n, ok := nodes[e.From]; ok && n.Kind == graphdb.KindMember {
				g.members[e.To] = append(g.members[e.To], n)
			}
		case graphdb.EdgeInherits, graphdb.EdgeImplements:
			g.supers[e.From] = append(g.supers[e.From], e.To)
		case graphdb.EdgeCalls:
			if _, ok := nodes[e.From]; ok {
				g.calls[call{e.File, e.Line, e.To}] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan edges: %w", err)
	}
	for id, ss := range g.supers {
		// Superclasses first, as the JVM looks them up before interfaces.
		sort.SliceStable(ss, func(a, b int) bool {
			return nodes[ss[a]].SubKind != "interface" && nodes[ss[b]].SubKind == "interface"
		})
		g.supers[id] = ss
	}
	return g, nil
}

// Check compares relay's calls edges in st with the classes' invoke
// instructions.
func Check(ctx context.Context, st Store, o Options) (Result, error) {
	g, err := load(ctx, st)
	if err != nil {
		return Result{}, err
	}
	ins, err := javap(ctx, o.Javap, o.Module, o.Classpath, o.Classes)
	if err != nil {
		return Result{}, err
	}
	var r Result
	src := newSources(o.Root)
	truth := map[site]map[int]bool{} // (file, callee) → lines
	implicit := map[site]map[int]bool{}
	covered := map[string]bool{}
	for _, in := range ins {
		covered[in.file] = true
		tn, ok := g.types[strings.ReplaceAll(in.owner, "$", ".")]
		if !ok || anonymous(in.owner) {
			continue // outside the code base, or an anonymous class
		}
		to, ok := g.resolve(tn, in, 0)
		if !ok {
			r.Score.Unmapped++
			r.Unmapped = append(r.Unmapped, fmt.Sprintf("%s:%d %s.%s(%s) from %s", in.file, in.line, in.owner, in.name, strings.Join(in.params, ","), in.caller))
			continue
		}
		k := site{in.file, to}
		if src.implicit(in) {
			r.Implicit++
			addSite(implicit, k, in.line)
			continue
		}
		addSite(truth, k, in.line)
	}
	ours := map[site]map[int]bool{}
	for e := range g.calls {
		if !covered[e.file] {
			continue
		}
		k := site{e.file, e.to}
		if ours[k] == nil {
			ours[k] = map[int]bool{}
		}
		ours[k][e.line] = true
	}
	var all Result
	implicitOnly := map[site]map[int]bool{}
	for k, ls := range implicit {
		for l := range ls {
			if !truth[k][l] {
				addSite(implicitOnly, k, l)
			}
		}
	}
	implicitHits := all.match(union(truth, implicit), ours, implicitOnly)
	r.All, r.AllMisses = all.Score, all.Misses
	sort.Strings(r.AllMisses)
	// The explicit score leaves out relay's edges that match an implicit
	// call site (same callee, same or a nearby line), as it leaves out the
	// sites themselves.
	for _, h := range implicitHits {
		delete(ours[h.site], h.line)
	}
	r.match(truth, ours, nil)
	sort.Strings(r.Misses)
	sort.Strings(r.Wrong)
	sort.Strings(r.Unmapped)
	return r, nil
}

func addSite(m map[site]map[int]bool, k site, line int) {
	if m[k] == nil {
		m[k] = map[int]bool{}
	}
	m[k][line] = true
}

// union returns the call sites of a and b.
func union(a, b map[site]map[int]bool) map[site]map[int]bool {
	out := map[site]map[int]bool{}
	for _, m := range []map[site]map[int]bool{a, b} {
		for k, ls := range m {
			for l := range ls {
				addSite(out, k, l)
			}
		}
	}
	return out
}

// site is a callee called from a file.
type site struct {
	file string
	to   graphdb.NodeID
}

// nearLines is how far apart relay's line and javac's may be for one call:
// javac gives a constructor call (new C(…)) the line of its statement or of
// the last call among its arguments, relay the line of `new`.
const nearLines = 6

// match counts the call sites both sides have: same file, callee and line,
// then, among those left, the same file and callee on lines at most
// nearLines apart (nearest first). It returns relay's edges that matched
// a line of only (javac's implicit calls) rather than of the rest of the
// truth.
func (r *Result) match(truth, ours, only map[site]map[int]bool) []siteLine {
	var out []siteLine
	hit := func(k site, t, o int) {
		if only[k][t] {
			out = append(out, siteLine{k, o})
		}
	}
	for k, tl := range truth {
		r.Truth += len(tl)
		ol := ours[k]
		r.Relay += len(ol)
		var restT, restO []int
		for l := range tl {
			if ol[l] {
				r.Hit++
				hit(k, l, l)
			} else {
				restT = append(restT, l)
			}
		}
		for l := range ol {
			if !tl[l] {
				restO = append(restO, l)
			}
		}
		sort.Ints(restT)
		sort.Ints(restO)
		used := map[int]bool{}
		for _, t := range restT {
			best := -1
			for i, o := range restO {
				if !used[i] && abs(o-t) <= nearLines && (best < 0 || abs(o-t) < abs(restO[best]-t)) {
					best = i
				}
			}
			if best < 0 {
				r.Misses = append(r.Misses, fmt.Sprintf("%s:%d -> %s", k.file, t, k.to))
				continue
			}
			used[best] = true
			r.Hit++
			r.Near++
			hit(k, t, restO[best])
		}
		for i, o := range restO {
			if !used[i] {
				r.Wrong = append(r.Wrong, fmt.Sprintf("%s:%d -> %s", k.file, o, k.to))
			}
		}
	}
	for k, ol := range ours {
		if truth[k] != nil {
			continue
		}
		for l := range ol {
			r.Relay++
			r.Wrong = append(r.Wrong, fmt.Sprintf("%s:%d -> %s", k.file, l, k.to))
		}
	}
	return out
}

// siteLine is one of relay's edges: a call site and its line.
type siteLine struct {
	site site
	line int
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// anonymous reports whether a binary name is an anonymous or local class
// (Outer$1, Outer$1Local).
func anonymous(bin string) bool {
	for _, seg := range strings.Split(bin, "$")[1:] {
		if seg != "" && seg[0] >= '0' && seg[0] <= '9' {
			return true
		}
	}
	return false
}

// resolve finds the node the instruction calls: a method of t by name and
// parameters, else of its supertypes; a constructor of t, or t itself when
// it declares none.
func (g *graph) resolve(t graphdb.Node, in invoke, depth int) (graphdb.NodeID, bool) {
	if depth > 24 {
		return "", false
	}
	if in.name == "<init>" {
		var ctors []graphdb.Node
		for _, m := range g.members[t.ID] {
			if m.SubKind == "constructor" {
				ctors = append(ctors, m)
			}
		}
		if len(ctors) == 0 {
			return t.ID, true
		}
		if id, ok := pick(ctors, in.params); ok {
			return id, true
		}
		if t.SubKind == "enum" && len(in.params) >= 2 {
			return pick(ctors, in.params[2:])
		}
		if len(in.params) > 0 {
			return pick(ctors, in.params[1:]) // an inner class's outer instance
		}
		return "", false
	}
	var same []graphdb.Node
	for _, m := range g.members[t.ID] {
		if m.SubKind == "method" && m.Name == in.name {
			same = append(same, m)
		}
	}
	if id, ok := pick(same, in.params); ok {
		return id, true
	}
	for _, s := range g.supers[t.ID] {
		if sn, ok := g.typeByID(s); ok {
			if id, ok := g.resolve(sn, in, depth+1); ok {
				return id, true
			}
		}
	}
	return "", false
}

func (g *graph) typeByID(id graphdb.NodeID) (graphdb.Node, bool) {
	n, ok := g.types[strings.TrimPrefix(string(id), "java:")]
	return n, ok
}

// pick chooses among same-named members by parameter types: relay's
// QName of an overloaded method ends in its parameters' simple names;
// a type variable in them (erased by the compiler) matches any type.
func pick(ms []graphdb.Node, params []string) (graphdb.NodeID, bool) {
	var arity []graphdb.Node
	for _, m := range ms {
		ps, ok := paramsOf(m)
		if !ok || len(ps) == len(params) {
			arity = append(arity, m)
		}
	}
	if len(arity) == 1 {
		if _, ok := paramsOf(arity[0]); !ok || len(ms) == 1 {
			return arity[0].ID, true
		}
	}
	var best graphdb.NodeID
	bestScore := -1
	for _, m := range arity {
		ps, ok := paramsOf(m)
		if !ok {
			continue
		}
		score := 0
		for i, p := range ps {
			switch {
			case p == params[i]:
				score += 2
			case typeVar(p):
				score++
			default:
				score = -100
			}
		}
		if score > bestScore {
			best, bestScore = m.ID, score
		}
	}
	if bestScore < 0 && len(ms) == 1 {
		// A signature-polymorphic method (VarHandle.get(Object...)): the
		// descriptor is the call's, not the declaration's.
		if ps, ok := paramsOf(ms[0]); ok && len(ps) == 1 && ps[0] == "Object[]" && strings.Contains(ms[0].Signature, "native") {
			return ms[0].ID, true
		}
	}
	return best, bestScore >= 0
}

// paramsOf reads the parameter types of a method: the suffix of an
// overloaded method's QName, else its signature.
func paramsOf(m graphdb.Node) ([]string, bool) {
	q := m.QName
	if !strings.HasSuffix(q, ")") {
		return sigParams(m.Signature)
	}
	i := strings.LastIndexByte(q, '(')
	if i < 0 {
		return nil, false
	}
	s := q[i+1 : len(q)-1]
	if s == "" {
		return []string{}, true
	}
	return strings.Split(s, ","), true
}

// typeVar reports whether a parameter type as written looks like a type
// variable (T, E, K, V, T[]…), which the compiler erases to its bound.
func typeVar(p string) bool {
	p = strings.TrimSuffix(p, "[]")
	p = strings.TrimSuffix(p, "[]")
	return len(p) <= 2 && len(p) > 0 && p[0] >= 'A' && p[0] <= 'Z'
}

// sigParams reads the parameter types of a method's signature
// ("public int f(final List<String> xs, int... n)" → List, int[]).
func sigParams(sig string) ([]string, bool) {
	i := strings.IndexByte(sig, '(')
	if i < 0 {
		return nil, false
	}
	depth, start := 0, i+1
	var parts []string
	for k := i + 1; k < len(sig); k++ {
		switch sig[k] {
		case '<', '(':
			depth++
		case '>':
			depth--
		case ')':
			if depth == 0 {
				parts = append(parts, sig[start:k])
				return simpleParams(parts), true
			}
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, sig[start:k])
				start = k + 1
			}
		}
	}
	return nil, false
}

func simpleParams(parts []string) []string {
	out := []string{}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		var b strings.Builder
		depth := 0
		for _, r := range p {
			switch {
			case r == '<':
				depth++
			case r == '>':
				depth--
			case depth == 0:
				b.WriteRune(r)
			}
		}
		f := strings.Fields(strings.ReplaceAll(b.String(), "...", "[] "))
		var typ []string
		for _, w := range f {
			if strings.HasPrefix(w, "@") || w == "final" {
				continue
			}
			typ = append(typ, w)
		}
		if len(typ) == 0 {
			continue
		}
		t := typ[0]
		for i := 1; i < len(typ)-1; i++ {
			t += typ[i] // "int []" or "int[] []"
		}
		name, dims := strings.TrimRight(t, "[]"), strings.Count(t, "[")
		out = append(out, name[strings.LastIndexByte(name, '.')+1:]+strings.Repeat("[]", dims))
	}
	return out
}
