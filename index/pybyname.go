//go:build cgo

package index

import (
	"slices"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// pyMaxByName caps the by-name candidates of one call: a method name the
// repository defines on more than this many classes (get, run, close…)
// says too little about which one a call reaches, so such calls get no
// calls_by_name edge at all rather than an arbitrary few.
const pyMaxByName = 8

// byName returns the by-name candidates of a call that resolved neither
// by name nor by type (EdgeCallsByName, never a call): the repository's
// methods named like the called attribute, when the call is `v.m()` on a
// value whose type the indexer does not know — a parameter or local of
// unknown type, a module variable or attribute chain of unknown value, the
// result of a call whose return type is unknown, or self/cls when no class
// in the MRO defines m (a mixin calling what its subclasses define).
// Plain names (builtins, external imports, parameters holding functions)
// and calls on a known module, class or instance (the method then lives
// outside the repository, in an external base) get none, nor do dunder
// names, which every class shares.
func (t *pyTable) byName(r pyRef) []graphdb.NodeID {
	if r.kind != graphdb.EdgeCalls || r.implicit || r.prop {
		return nil
	}
	i := strings.LastIndexByte(r.expr, '.')
	if i < 0 {
		return nil
	}
	name, prefix := r.expr[i+1:], r.expr[:i]
	if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") {
		return nil
	}
	head, _, _ := strings.Cut(prefix, ".")
	call := strings.HasSuffix(head, "()")
	head = strings.TrimSuffix(head, "()")
	s := t.mods[r.module]
	if s == nil || head == "super" {
		return nil
	}
	selfish := r.class != "" && (head == "self" || head == "cls")
	switch {
	case selfish:
	case r.decl != nil && r.decl.imports[head] != "":
		return nil // imported inside the function and not in the repository
	case r.decl != nil && r.decl.locals[head]:
	case s.defs[head].id != "" && s.defs[head].cls == nil && call:
		// make().m(): a repository function whose return type is unknown
	case s.vars[head] != "" && s.imports[head] == "" && s.defs[head].id == "":
	default:
		return nil // a builtin, an external import, a known class or module
	}
	if !selfish {
		if v, ok := t.evalExpr(pyCtx{scope: s, decl: r.decl, class: r.class}, prefix, 0); ok && (v.mod != nil || v.cls != nil || v.fn != "") {
			return nil // the value is known: m is not the repository's
		}
	}
	ids := t.methodsNamed()[name]
	if len(ids) > pyMaxByName {
		return nil
	}
	return ids
}

// methodsNamed indexes the methods of every module-level class of the
// repository by name, sorted by id; built once per run.
func (t *pyTable) methodsNamed() map[string][]graphdb.NodeID {
	if t.byNameIdx != nil {
		return t.byNameIdx
	}
	t.byNameIdx = map[string][]graphdb.NodeID{}
	for _, s := range t.mods {
		for _, sym := range s.defs {
			if sym.cls == nil {
				continue
			}
			for m, id := range sym.cls.methods {
				t.byNameIdx[m] = append(t.byNameIdx[m], id)
			}
		}
	}
	for _, ids := range t.byNameIdx {
		slices.Sort(ids)
	}
	return t.byNameIdx
}
