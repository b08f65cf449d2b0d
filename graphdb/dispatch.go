package graphdb

import (
	"context"
	"sort"
)

// DispatchTargets returns the interface methods through which the concrete
// method m can be called: for m's type T, every interface I that T
// implements and that declares a method named m.Name gives I.m. A call
// through I.m may run m, so for "who can reach m" those callers count too.
// Nodes that are not methods, and methods of interfaces, give none.
func DispatchTargets(ctx context.Context, r Reader, m Node) ([]Node, error) {
	if m.Kind != KindMember || m.SubKind == "field" {
		return nil, nil
	}
	parents, err := r.Neighbors(ctx, m.ID, EdgeParent, Outbound, 0)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, p := range parents {
		if isInterface(ctx, r, p.To) {
			continue // an interface's implements edges say which interfaces it satisfies, not where it is called from
		}
		ifaces, err := r.Neighbors(ctx, p.To, EdgeImplements, Outbound, 0)
		if err != nil {
			return nil, err
		}
		for _, ie := range ifaces {
			ms, err := methodsNamed(ctx, r, ie.To, m.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	sortNodes(out)
	return out, nil
}

// DispatchImplementations is the converse of DispatchTargets: for an
// interface method I.m, the methods named m of every type implementing I.
func DispatchImplementations(ctx context.Context, r Reader, im Node) ([]Node, error) {
	if im.Kind != KindMember || im.SubKind == "field" {
		return nil, nil
	}
	parents, err := r.Neighbors(ctx, im.ID, EdgeParent, Outbound, 0)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, p := range parents {
		impls, err := r.Neighbors(ctx, p.To, EdgeImplements, Inbound, 0)
		if err != nil {
			return nil, err
		}
		for _, ie := range impls {
			if isInterface(ctx, r, ie.From) {
				continue // calls dispatch to concrete methods only
			}
			ms, err := methodsNamed(ctx, r, ie.From, im.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	sortNodes(out)
	return out, nil
}

// isInterface reports whether id is a stored interface type (an
// interface satisfying another has an implements edge to it).
func isInterface(ctx context.Context, r Reader, id NodeID) bool {
	n, err := r.Node(ctx, id)
	return err == nil && n.Kind == KindType && n.SubKind == "interface"
}

func methodsNamed(ctx context.Context, r Reader, typ NodeID, name string) ([]Node, error) {
	members, err := r.Neighbors(ctx, typ, EdgeParent, Inbound, 0)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, me := range members {
		n, err := r.Node(ctx, me.From)
		if err != nil {
			return nil, err
		}
		if n.Name == name && n.SubKind != "field" {
			out = append(out, n)
		}
	}
	return out, nil
}

func sortNodes(ns []Node) {
	sort.Slice(ns, func(i, j int) bool {
		if ns[i].File != ns[j].File {
			return ns[i].File < ns[j].File
		}
		if ns[i].StartLine != ns[j].StartLine {
			return ns[i].StartLine < ns[j].StartLine
		}
		return ns[i].QName < ns[j].QName
	})
}
