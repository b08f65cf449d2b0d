package graphdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// AmbiguousError is returned by Resolve when a target names several nodes.
// It wraps ErrAmbiguous (or ErrNotFound with close candidates).
type AmbiguousError struct {
	Target     string
	Candidates []Node
	notFound   bool
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	if e.notFound {
		fmt.Fprintf(&b, "no symbol named %q; closest candidates:", e.Target)
	} else {
		fmt.Fprintf(&b, "%q is ambiguous; %d candidates:", e.Target, len(e.Candidates))
	}
	for _, c := range e.Candidates {
		if c.File == "" {
			fmt.Fprintf(&b, "\n  %s (%s, no source)", c.QName, c.Kind)
			continue
		}
		fmt.Fprintf(&b, "\n  %s (%s, %s:%d)", c.QName, c.Kind, c.File, c.StartLine)
	}
	return b.String()
}

func (e *AmbiguousError) Unwrap() error {
	if e.notFound {
		return ErrNotFound
	}
	return ErrAmbiguous
}

// maxCandidates caps the candidates an ambiguous answer lists.
const maxCandidates = 10

// Resolve finds the node a person or a model means by target, trying in
// order: exact id, exact qname, exact location name ("path/f.go:Recv.M"),
// dotted suffix ("Server.Serve", "http.Server.Serve"), then short name,
// then a path in the qualified names Rust and C++ write with "::"
// ("Box::get" or "Box.get" for shapes::Box::get; resolvePath). The
// first rung that matches exactly one node wins. Several matches on a rung
// give an *AmbiguousError wrapping ErrAmbiguous with the candidates; no match
// anywhere gives one wrapping ErrNotFound with candidates sharing the last
// name segment (possibly none). Callable and type nodes are preferred over
// fields when a rung matches both.
func Resolve(ctx context.Context, r Reader, target string) (Node, error) {
	target = strings.TrimSpace(strings.ReplaceAll(target, "*", ""))
	target = strings.TrimPrefix(target, "(")
	if target == "" {
		return Node{}, fmt.Errorf("empty target: %w", ErrNotFound)
	}
	rungs := []SymbolQuery{
		{ID: NodeID(target)},
		{QName: target},
		{Loc: target},
	}
	if strings.ContainsAny(target, "./") {
		rungs = append(rungs, SymbolQuery{Suffix: target})
	} else {
		rungs = append(rungs, SymbolQuery{Name: target})
	}
	for _, q := range rungs {
		q.Limit = 200
		ns, err := r.FindSymbols(ctx, q)
		if err != nil {
			return Node{}, fmt.Errorf("resolve %q: %w", target, err)
		}
		ns = prefer(ns)
		switch {
		case len(ns) == 1:
			return ns[0], nil
		case len(ns) > 1:
			if len(ns) > maxCandidates {
				ns = ns[:maxCandidates]
			}
			return Node{}, &AmbiguousError{Target: target, Candidates: ns}
		}
	}
	if n, ok, err := resolvePath(ctx, r, target); ok || err != nil {
		return n, err
	}
	// Nothing matched: offer nodes sharing the last segment of the name.
	last := target
	if i := strings.LastIndexAny(last, "./:"); i >= 0 {
		last = last[i+1:]
	}
	var cands []Node
	if last != "" {
		ns, err := r.FindSymbols(ctx, SymbolQuery{Name: last, Limit: maxCandidates})
		if err != nil {
			return Node{}, fmt.Errorf("resolve %q: %w", target, err)
		}
		cands = ns
	}
	return Node{}, &AmbiguousError{Target: target, Candidates: cands, notFound: true}
}

// prefer drops file/module nodes and fields when functions, methods or types
// are also present, so "Serve" means the method, not a field of that name,
// and a node without source (an external placeholder) when a node with
// source has the same qname.
func prefer(ns []Node) []Node {
	if len(ns) < 2 {
		return ns
	}
	withSource := map[string]bool{}
	for _, n := range ns {
		if n.File != "" {
			withSource[n.QName] = true
		}
	}
	if len(withSource) > 0 {
		real := ns[:0:0]
		for _, n := range ns {
			if n.File != "" || !withSource[n.QName] {
				real = append(real, n)
			}
		}
		ns = real
		if len(ns) < 2 {
			return ns
		}
	}
	var best []Node
	for _, n := range ns {
		if n.Kind == KindFunction || n.Kind == KindType || (n.Kind == KindMember && n.SubKind != "field") {
			best = append(best, n)
		}
	}
	if len(best) == 0 {
		return ns
	}
	return best
}

// resolvePath resolves a target whose segments, joined by "::" or ".",
// end a qualified name segment for segment (Rust and C++ qualified names
// join with "::", which the suffix rung does not split on): the nodes
// named by its last segment are filtered by the rest. ok is false when
// the target has one segment or nothing matches; several matches are an
// *AmbiguousError.
func resolvePath(ctx context.Context, r Reader, target string) (Node, bool, error) {
	want := pathSegments(target)
	if len(want) < 2 {
		return Node{}, false, nil
	}
	ns, err := r.FindSymbols(ctx, SymbolQuery{Name: want[len(want)-1], Limit: 200})
	if err != nil {
		return Node{}, false, fmt.Errorf("resolve %q: %w", target, err)
	}
	var out []Node
	for _, n := range ns {
		have := pathSegments(n.QName)
		if len(have) >= len(want) && slices.Equal(have[len(have)-len(want):], want) {
			out = append(out, n)
		}
	}
	switch out = prefer(out); {
	case len(out) == 1:
		return out[0], true, nil
	case len(out) > 1:
		return Node{}, false, &AmbiguousError{Target: target, Candidates: out[:min(len(out), maxCandidates)]}
	}
	return Node{}, false, nil
}

// pathSegments splits a qualified name at "::", "." and "/".
func pathSegments(s string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(s, "::", "."), func(r rune) bool { return r == '.' || r == '/' })
}
