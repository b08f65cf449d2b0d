package clangcheck

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// collect resolves one translation unit against the repository.
func (m *merger) collect(u *tu, dir string) *tuResult {
	r := &tuResult{}
	groups := map[*decl][]*decl{}
	ctors := map[string][]*decl{}
	for _, d := range u.decls {
		c := u.canon(d)
		groups[c] = append(groups[c], d)
		if d.ctorType != "" {
			ctors[d.record+"|"+d.ctorType] = append(ctors[d.record+"|"+d.ctorType], d)
		}
		if !d.def {
			continue
		}
		if f, ok := m.fn(d, dir); ok {
			r.defs = append(r.defs, f)
			if !d.static && d.mangled != "" {
				m.mu.Lock()
				m.defs[d.mangled] = append(m.defs[d.mangled], f)
				m.mu.Unlock()
			}
		}
	}
	for _, c := range u.calls {
		caller, ok := u.decls[c.caller]
		if !ok {
			continue
		}
		from, ok := m.fn(caller, dir)
		file := m.rel(c.site, dir)
		if !ok || file == "" {
			continue
		}
		site := Site{File: file, Line: m.line(file, c.site.offset)}
		d := u.decls[c.callee]
		if c.ctorClass != "" {
			d = pickCtor(ctors[c.ctorClass+"|"+c.ctorType])
		}
		if d == nil {
			if c.ctorClass == "" {
				r.indirect = append(r.indirect, site)
			}
			continue
		}
		m.edge(r, u, groups[u.canon(d)], Edge{Caller: from, File: site.File, Line: site.Line}, dir)
	}
	return r
}

// pickCtor returns the constructor a construct expression calls: the
// class's one of that type (declarations of one constructor share it).
func pickCtor(ds []*decl) *decl {
	if len(ds) == 0 {
		return nil
	}
	return ds[0]
}

// edge completes e with the callee's redeclaration group and files it as
// resolved, open (declared only: its definition is another unit's) or
// nothing (declared outside the repository).
func (m *merger) edge(r *tuResult, u *tu, group []*decl, e Edge, dir string) {
	var def *decl
	for _, g := range group {
		if f, ok := m.fn(g, dir); ok {
			e.Decls = append(e.Decls, f)
		}
		if g.def {
			def = g
		}
	}
	if len(e.Decls) == 0 {
		return
	}
	sortFuncs(e.Decls)
	if def != nil {
		f, ok := m.fn(def, dir)
		if !ok {
			return
		}
		e.Callee = f
		r.edges = append(r.edges, e)
		return
	}
	e.Callee = e.Decls[0]
	c := u.canon(group[0])
	if c.static || c.mangled == "" {
		r.edges = append(r.edges, e)
		return
	}
	r.open = append(r.open, openEdge{Edge: e, mangled: c.mangled})
}

// finish resolves the open edges across units and sorts everything.
func (m *merger) finish(results []*tuResult) (*Truth, error) {
	t := &Truth{}
	read := 0
	for _, r := range results {
		if r.err != "" {
			t.Errors = append(t.Errors, r.err)
			continue
		}
		read++
		t.Edges = append(t.Edges, r.edges...)
		t.Indirect = append(t.Indirect, r.indirect...)
		t.Defs = append(t.Defs, r.defs...)
		for _, o := range r.open {
			e := o.Edge
			if ds := uniqueFuncs(m.defs[o.mangled]); len(ds) == 1 {
				e.Callee = ds[0]
				e.Decls = uniqueFuncs(append(e.Decls, ds[0]))
			}
			t.Edges = append(t.Edges, e)
		}
	}
	if read == 0 && len(results) > 0 {
		return nil, fmt.Errorf("clang read no translation unit: %w", errors.New(t.Errors[0]))
	}
	slices.SortFunc(t.Edges, func(a, b Edge) int {
		return cmp.Or(compareFunc(a.Caller, b.Caller), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), compareFunc(a.Callee, b.Callee))
	})
	t.Edges = slices.CompactFunc(t.Edges, func(a, b Edge) bool {
		return a.Caller == b.Caller && a.Callee == b.Callee && a.File == b.File && a.Line == b.Line
	})
	slices.SortFunc(t.Indirect, func(a, b Site) int { return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line)) })
	t.Indirect = slices.Compact(t.Indirect)
	t.Defs = uniqueFuncs(t.Defs)
	return t, nil
}

func compareFunc(a, b Func) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
}

func sortFuncs(fs []Func) { slices.SortFunc(fs, compareFunc) }

// uniqueFuncs returns fs sorted without repeats (a header's definition
// is seen by every unit that includes it).
func uniqueFuncs(fs []Func) []Func {
	fs = slices.Clone(fs)
	sortFuncs(fs)
	return slices.Compact(fs)
}
