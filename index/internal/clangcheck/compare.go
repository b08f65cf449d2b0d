package clangcheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/relayhq/relay/graphdb"
)

// Relay is relay's call graph as the comparison reads it: the callables
// of some languages and their calls edges.
type Relay struct {
	byFile map[string][]graphdb.Node
	nodes  map[graphdb.NodeID]graphdb.Node
	calls  map[graphdb.NodeID][]graphdb.Edge
}

// notCallable are the member sub-kinds that are no function.
var notCallable = map[string]bool{"field": true, "property": true, "enum_constant": true, "constant": true, "variable": true}

// LoadRelay reads the callables (function nodes, member nodes but
// fields) of languages from a store, and their calls edges.
func LoadRelay(ctx context.Context, sc graphdb.Scanner, languages ...string) (*Relay, error) {
	r := &Relay{byFile: map[string][]graphdb.Node{}, nodes: map[graphdb.NodeID]graphdb.Node{}, calls: map[graphdb.NodeID][]graphdb.Edge{}}
	err := sc.ScanNodes(ctx, func(_ string, n graphdb.Node) error {
		if !slices.Contains(languages, n.Language) || n.File == "" {
			return nil
		}
		if n.Kind == graphdb.KindFunction || n.Kind == graphdb.KindMember && !notCallable[n.SubKind] {
			r.nodes[n.ID] = n
			r.byFile[n.File] = append(r.byFile[n.File], n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan relay nodes: %w", err)
	}
	err = sc.ScanEdges(ctx, func(_ string, e graphdb.Edge) error {
		if e.Kind == graphdb.EdgeCalls {
			if _, ok := r.nodes[e.From]; ok {
				r.calls[e.From] = append(r.calls[e.From], e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan relay edges: %w", err)
	}
	return r, nil
}

// match returns relay's node for a function clang declares: same file and
// name, its first line between the declaration's first line and its
// name's line (relay may start it at the return type or at the name).
func (r *Relay) match(f Func) (graphdb.Node, bool) {
	for _, n := range r.byFile[f.File] {
		if n.Name == f.Name && n.StartLine >= f.Start && n.StartLine <= f.Line {
			return n, true
		}
	}
	return graphdb.Node{}, false
}

// CompareOptions says which functions to compare.
type CompareOptions struct {
	Sample int    // callers to sample from the truth's definitions; 0 for all
	Seed   uint64 // the sample's seed
}

// Score counts callees per sampled caller, deduplicated: Truth clang's
// callees in the repository, TruthHit those relay has, Relay relay's
// callees, RelayHit those clang has.
type Score struct {
	Callers, Unmatched int // sampled callers; those relay has no node for (their callees are misses)
	Truth, TruthHit    int
	Relay, RelayHit    int
	Indirect, Macro    int // relay callees left out: at a call through a pointer, or a macro
}

// Precision is RelayHit/Relay, 1 with no relay callee.
func (s Score) Precision() float64 {
	if s.Relay == 0 {
		return 1
	}
	return float64(s.RelayHit) / float64(s.Relay)
}

// Recall is TruthHit/Truth, 1 with no truth callee.
func (s Score) Recall() float64 {
	if s.Truth == 0 {
		return 1
	}
	return float64(s.TruthHit) / float64(s.Truth)
}

func (s Score) String() string {
	return fmt.Sprintf("callers %d (%d unmatched) truth %d relay %d: precision %.4f recall %.4f (left out: %d at indirect calls, %d macros)",
		s.Callers, s.Unmatched, s.Truth, s.Relay, s.Precision(), s.Recall(), s.Indirect, s.Macro)
}

// Result is the score with its differences, as "caller -> callee" lines.
type Result struct {
	Score
	Misses []string // clang's, not relay's
	Wrong  []string // relay's, not clang's
	NoNode []string // sampled definitions relay has no node for
}

// Compare scores relay's calls edges against clang's for a sample of the
// repository's function definitions.
//
// DESIGN: the unit is a (caller, callee) pair, so that relay's call
// sites (which may differ by a line from clang's for calls that span
// lines) need not match. A relay callee matches a clang callee when it is
// relay's node for any of the callee's declarations (a prototype in a
// header or the definition). Relay's edges at a site where clang saw a
// call through a pointer (a struct field assigned a function, a
// parameter) have no truth to compare with and are counted apart
// (Indirect), as are edges to macros, which clang does not see as calls.
func Compare(t *Truth, r *Relay, o CompareOptions) Result {
	var res Result
	byCaller := map[Func][]Edge{}
	for _, e := range t.Edges {
		byCaller[e.Caller] = append(byCaller[e.Caller], e)
	}
	indirect := map[Site]bool{}
	for _, s := range t.Indirect {
		indirect[s] = true
	}
	for _, f := range sample(t.Defs, o) {
		res.Callers++
		truth := map[Func][]Func{}
		for _, e := range byCaller[f] {
			truth[e.Callee] = e.Decls
		}
		n, ok := r.match(f)
		if !ok {
			res.Unmatched++
			res.NoNode = append(res.NoNode, f.String())
			res.Truth += len(truth)
			for c := range truth {
				res.Misses = append(res.Misses, f.String()+" -> "+c.String())
			}
			continue
		}
		res.compareCaller(f, truth, r, n, indirect)
	}
	slices.Sort(res.Misses)
	slices.Sort(res.Wrong)
	return res
}

// compareCaller scores one caller's callees.
func (res *Result) compareCaller(f Func, truth map[Func][]Func, r *Relay, n graphdb.Node, indirect map[Site]bool) {
	hit := map[Func]bool{}
	seen := map[graphdb.NodeID]bool{}
	for _, e := range r.calls[n.ID] {
		to, ok := r.nodes[e.To]
		if !ok || seen[e.To] {
			continue
		}
		var matched bool
		for c, decls := range truth {
			if slices.ContainsFunc(decls, func(d Func) bool { m, ok := r.match(d); return ok && m.ID == to.ID }) {
				hit[c], matched = true, true
			}
		}
		switch {
		case matched:
			seen[e.To] = true
			res.Relay++
			res.RelayHit++
		case to.SubKind == "macro":
			res.Macro++
		case indirect[Site{File: e.File, Line: e.Line}]:
			res.Indirect++
		default:
			seen[e.To] = true
			res.Relay++
			res.Wrong = append(res.Wrong, fmt.Sprintf("%s -> %s:%d:%s (at %s:%d)", f, to.File, to.StartLine, to.Name, e.File, e.Line))
		}
	}
	res.Truth += len(truth)
	for c := range truth {
		if hit[c] {
			res.TruthHit++
		} else {
			res.Misses = append(res.Misses, f.String()+" -> "+c.String())
		}
	}
}

// sample returns o.Sample of defs chosen by o.Seed (all when 0 or more
// than there are), in their sorted order.
func sample(defs []Func, o CompareOptions) []Func {
	if o.Sample <= 0 || o.Sample >= len(defs) {
		return defs
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	idx := rng.Perm(len(defs))[:o.Sample]
	slices.Sort(idx)
	out := make([]Func, len(idx))
	for i, j := range idx {
		out[i] = defs[j]
	}
	return out
}
