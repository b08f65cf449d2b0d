package graphdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Op is a graph operation offered to people and models.
type Op string

// Graph operations (ARCHITECTURE.md at the repository root, "Graph operations").
const (
	OpCallers         Op = "callers"         // INBOUND calls
	OpCallees         Op = "callees"         // OUTBOUND calls
	OpImplementations Op = "implementations" // INBOUND implements
	OpMethods         Op = "methods"         // INBOUND parent (members of a type)
	OpUsages          Op = "usages"          // INBOUND returns + OUTBOUND param_of
	OpInheritors      Op = "inheritors"      // INBOUND inherits
)

// Ops lists the operations in a stable order.
var Ops = []Op{OpCallers, OpCallees, OpImplementations, OpMethods, OpUsages, OpInheritors}

// ParseOp validates an operation name.
func ParseOp(s string) (Op, error) {
	for _, op := range Ops {
		if string(op) == s {
			return op, nil
		}
	}
	return "", fmt.Errorf("unknown graph operation %q (want one of callers, callees, implementations, methods, usages, inheritors)", s)
}

// step is one leg of an operation: an edge kind followed in a direction,
// labelled with the relation a person reads.
type step struct {
	kind     EdgeKind
	dir      Direction
	relation string
}

func (op Op) steps() []step {
	switch op {
	case OpCallers:
		return []step{{EdgeCalls, Inbound, "calls"}}
	case OpCallees:
		return []step{{EdgeCalls, Outbound, "called by"}}
	case OpImplementations:
		return []step{{EdgeImplements, Inbound, "implements"}}
	case OpMethods:
		return []step{{EdgeParent, Inbound, "member of"}}
	case OpUsages:
		return []step{{EdgeReturns, Inbound, "returns"}, {EdgeParamOf, Outbound, "takes as parameter"}}
	case OpInheritors:
		return []step{{EdgeInherits, Inbound, "inherits/embeds"}}
	}
	return nil
}

// Multi reports whether depth > 1 is meaningful for op. Methods and usages
// are one-hop relations; the others are transitive.
func (op Op) Multi() bool {
	switch op {
	case OpCallers, OpCallees, OpImplementations, OpInheritors:
		return true
	}
	return false
}

// Result is one answer of Query.
type Result struct {
	Node     Node   `json:"node"`
	Depth    int    `json:"depth"`
	Relation string `json:"relation"`       // how Node relates to the node at Depth-1 ("calls", "implements"…)
	Via      NodeID `json:"via,omitempty"`  // the node at Depth-1
	File     string `json:"file,omitempty"` // the site of the relation (call site) when known
	Line     int    `json:"line,omitempty"`
}

// Query runs op from target up to depth hops (at least 1; one-hop operations
// ignore larger depths) and returns at most limit results (0: all), each node
// once at its smallest depth, sorted by (Depth, Node.File, Node.StartLine,
// Node.QName). Callers and callees include the target itself when it calls
// itself (RelRecursive); callers end with the sites where a function uses
// the target as a value (RelReferenced, by site, after every depth).
// Calls matched by name only (EdgeCallsByName) are not in the answer:
// ByName lists them apart.
func Query(ctx context.Context, r Reader, op Op, target NodeID, depth, limit int) ([]Result, error) {
	steps := op.steps()
	if steps == nil {
		return nil, fmt.Errorf("unknown graph operation %q", op)
	}
	if depth < 1 || !op.Multi() {
		depth = 1
	}
	best := map[NodeID]Result{}
	add := func(res Result) {
		if res.Node.ID == target {
			return
		}
		if old, ok := best[res.Node.ID]; !ok || res.Depth < old.Depth {
			best[res.Node.ID] = res
		}
	}
	for _, st := range steps {
		hops, err := Traverse(ctx, r, target, []EdgeKind{st.kind}, st.dir, depth, 0)
		if err != nil {
			return nil, err
		}
		for _, h := range hops {
			add(Result{Node: h.Node, Depth: h.Depth, Relation: st.relation, Via: h.Via, File: h.Edge.File, Line: h.Edge.Line})
		}
	}
	if op == OpImplementations {
		for id, res := range best {
			ptr, err := pointerOnly(ctx, r, res.Node, res.Via)
			if err != nil {
				return nil, err
			}
			if ptr {
				res.Relation = "implements (only *" + res.Node.Name + ": pointer receivers)"
				best[id] = res
			}
		}
	}
	var refs []Result
	if op == OpCallers || op == OpCallees {
		if err := addDispatch(ctx, r, op, target, depth, add); err != nil {
			return nil, err
		}
		self, ok, err := selfCall(ctx, r, target)
		if err != nil {
			return nil, err
		}
		if ok {
			best[target] = self // add drops the target: traversals never return their start
		}
		if op == OpCallers {
			if refs, err = references(ctx, r, target); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Result, 0, len(best)+len(refs))
	for _, res := range best {
		out = append(out, res)
	}
	SortResults(out)
	out = append(out, refs...)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Relations Query gives beside the ones of op.steps.
const (
	// RelRecursive: the target calls itself directly (its first
	// self-call site).
	RelRecursive = "calls itself (recursive)"
	// RelReferenced: a function uses the target as a value (EdgeReferences)
	// at the site; listed after the callers, one result per site.
	RelReferenced = "referenced as a value"
)

// Relations of ByName's results.
const (
	RelCallerByName = "possible caller by name only (not type-checked)"
	RelCalleeByName = "possible callee by name only (not type-checked)"
)

// ByName lists what only a name match relates to target (EdgeCallsByName,
// recorded by frontends for calls they could not resolve by type): for
// OpCallers the functions whose unresolved calls name it, for OpCallees
// what target's unresolved calls may reach; nil for other operations. It
// is kept out of Query, whose answer is the exact one that review context,
// retrieval and blast radius build on: a by-name match is a lead to
// check, not a call. One result per node at its first site, sorted by
// site; nodes in exact (Query's answer) and target itself are left out,
// so the list holds only further candidates.
func ByName(ctx context.Context, r Reader, op Op, target NodeID, exact []Result) ([]Result, error) {
	dir, rel := Inbound, RelCallerByName
	switch op {
	case OpCallers:
	case OpCallees:
		dir, rel = Outbound, RelCalleeByName
	default:
		return nil, nil
	}
	es, err := r.Neighbors(ctx, target, EdgeCallsByName, dir, 0)
	if err != nil {
		return nil, err
	}
	seen := map[NodeID]bool{target: true}
	for _, res := range exact {
		seen[res.Node.ID] = true
	}
	var out []Result
	for _, e := range es { // sorted by site (Reader contract)
		id := e.From
		if dir == Outbound {
			id = e.To
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		n, err := r.Node(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Result{Node: n, Depth: 1, Relation: rel, Via: target, File: e.File, Line: e.Line})
	}
	return out, nil
}

// selfCall returns the target as its own caller when it calls itself
// directly, at its first self-call site.
func selfCall(ctx context.Context, r Reader, target NodeID) (Result, bool, error) {
	es, err := r.Neighbors(ctx, target, EdgeCalls, Outbound, 0)
	if err != nil {
		return Result{}, false, err
	}
	for _, e := range es {
		if e.To != target {
			continue
		}
		n, err := r.Node(ctx, target)
		if err != nil {
			return Result{}, false, err
		}
		return Result{Node: n, Depth: 1, Relation: RelRecursive, Via: target, File: e.File, Line: e.Line}, true, nil
	}
	return Result{}, false, nil
}

// references lists the functions that use target as a value, one result
// per site, sorted by site.
func references(ctx context.Context, r Reader, target NodeID) ([]Result, error) {
	es, err := r.Neighbors(ctx, target, EdgeReferences, Inbound, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(es))
	for _, e := range es {
		n, err := r.Node(ctx, e.From)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Result{Node: n, Depth: 1, Relation: RelReferenced, Via: target, File: e.File, Line: e.Line})
	}
	return out, nil
}

// addDispatch adds what dynamic dispatch makes reachable. Callers of a
// concrete method include the callers of the interface methods it can be
// called through (relation "calls via interface I.m", then their own
// callers up to depth). Callees of a function include, beside each interface
// method it calls, the concrete methods that call may run (relation "may
// dispatch to", depth 1 only). One interface hop is expanded, not chains.
func addDispatch(ctx context.Context, r Reader, op Op, target NodeID, depth int, add func(Result)) error {
	if op == OpCallers {
		t, err := r.Node(ctx, target)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ims, err := DispatchTargets(ctx, r, t)
		if err != nil {
			return err
		}
		for _, im := range ims {
			hops, err := Traverse(ctx, r, im.ID, []EdgeKind{EdgeCalls}, Inbound, depth, 0)
			if err != nil {
				return err
			}
			for _, h := range hops {
				res := Result{Node: h.Node, Depth: h.Depth, Relation: "calls", Via: h.Via, File: h.Edge.File, Line: h.Edge.Line}
				if h.Depth == 1 {
					res.Relation, res.Via = "calls via interface "+im.QName, target
				}
				add(res)
			}
		}
		return nil
	}
	calls, err := r.Neighbors(ctx, target, EdgeCalls, Outbound, 0)
	if err != nil {
		return err
	}
	done := map[NodeID]bool{}
	for _, e := range calls {
		if done[e.To] {
			continue
		}
		done[e.To] = true
		callee, err := r.Node(ctx, e.To)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		impls, err := DispatchImplementations(ctx, r, callee)
		if err != nil {
			return err
		}
		for _, m := range impls {
			add(Result{Node: m, Depth: 1, Relation: "may dispatch to (via " + callee.QName + ")", Via: target, File: e.File, Line: e.Line})
		}
	}
	return nil
}

// SortResults orders results by (Depth, File, StartLine, QName), stably.
// Results are large structs: it sorts an index permutation and moves each
// result once, instead of swapping structs (a hub's thousands of callers
// made the swaps dominate blast-radius time).
func SortResults(rs []Result) {
	if len(rs) < 2 {
		return
	}
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := &rs[i], &rs[j]
		if c := cmp.Compare(a.Depth, b.Depth); c != 0 {
			return c
		}
		if c := strings.Compare(a.Node.File, b.Node.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Node.StartLine, b.Node.StartLine); c != 0 {
			return c
		}
		return strings.Compare(a.Node.QName, b.Node.QName)
	})
	sorted := make([]Result, len(rs))
	for k, i := range idx {
		sorted[k] = rs[i]
	}
	copy(rs, sorted)
}

// pointerOnly reports whether only the pointer type *T implements iface:
// T is a concrete Go type and one of the interface's methods, declared or
// embedded (AttrEmbeddedMethods), is among those T's method set lacks and
// *T's has (AttrPointerMethods, computed by the indexer from go/types
// method sets, so methods promoted through embedding count).
func pointerOnly(ctx context.Context, r Reader, t Node, iface NodeID) (bool, error) {
	if t.Kind != KindType || t.SubKind == "interface" || t.Language != "go" || t.Attrs[AttrPointerMethods] == "" {
		return false, nil
	}
	ptr := strings.Split(t.Attrs[AttrPointerMethods], ",")
	in, err := r.Node(ctx, iface)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, name := range strings.Split(in.Attrs[AttrEmbeddedMethods], ",") {
		if name != "" && slices.Contains(ptr, name) {
			return true, nil
		}
	}
	ims, err := r.Neighbors(ctx, iface, EdgeParent, Inbound, 0)
	if err != nil {
		return false, err
	}
	for _, e := range ims {
		m, err := r.Node(ctx, e.From)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if m.SubKind == "method" && slices.Contains(ptr, m.Name) {
			return true, nil
		}
	}
	return false, nil
}
