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
	Javap     string   // the javap binary
	Module    string   // read the classes from this runtime-image module (java.base)
	Classpath string   // or from this directory
	Classes   []string // binary names of the classes to read
}

// Score counts call sites.
type Score struct {
	Truth, Relay, Hit int
	Unmapped          int // instructions whose callee relay has no node for
}

func (s Score) Precision() float64 { return float64(s.Hit) / float64(max(s.Relay, 1)) }
func (s Score) Recall() float64    { return float64(s.Hit) / float64(max(s.Truth, 1)) }

func (s Score) String() string {
	return fmt.Sprintf("truth %d relay %d hit %d: precision %.4f recall %.4f (unmapped %d)",
		s.Truth, s.Relay, s.Hit, s.Precision(), s.Recall(), s.Unmapped)
}

// Result is the score with the differences.
type Result struct {
	Score
	Misses   []string // in the truth, not in relay
	Wrong    []string // in relay, not in the truth
	Unmapped []string
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
	calls   map[string]bool // "file:line -> to"
	files   map[string]bool // files with calls
}

func load(ctx context.Context, st Store) (*graph, error) {
	g := &graph{types: map[string]graphdb.Node{}, members: map[graphdb.NodeID][]graphdb.Node{},
		supers: map[graphdb.NodeID][]graphdb.NodeID{}, calls: map[string]bool{}, files: map[string]bool{}}
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
				g.calls[fmt.Sprintf("%s:%d -> %s", e.File, e.Line, e.To)] = true
				g.files[e.File] = true
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
	truth := map[string]bool{}
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
		truth[fmt.Sprintf("%s:%d -> %s", in.file, in.line, to)] = true
	}
	for k := range truth {
		r.Truth++
		if g.calls[k] {
			r.Hit++
		} else {
			r.Misses = append(r.Misses, k)
		}
	}
	for k := range g.calls {
		file := k[:strings.LastIndexByte(k[:strings.Index(k, " -> ")], ':')]
		if !covered[file] {
			continue
		}
		r.Relay++
		if !truth[k] {
			r.Wrong = append(r.Wrong, k)
		}
	}
	sort.Strings(r.Misses)
	sort.Strings(r.Wrong)
	sort.Strings(r.Unmapped)
	return r, nil
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
	return best, bestScore >= 0
}

// paramsOf reads the parameter list of an overloaded method's QName.
func paramsOf(m graphdb.Node) ([]string, bool) {
	q := m.QName
	if !strings.HasSuffix(q, ")") {
		return nil, false
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
