//go:build cgo

package python

import (
	"slices"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// maxByName caps the by-name candidates of one call: a method name the
// repository defines on more than this many classes (get, run, close…)
// says too little about which one a call reaches, so such calls get no
// calls_by_name edge at all rather than an arbitrary few.
const maxByName = 8

// byName returns the name of a call that resolved neither by name nor by
// type and is to be matched by name only (EdgeCallsByName, never a call):
// the called attribute m, when the call is `v.m()` on a value whose type
// the indexer does not know — a parameter or local of unknown type, a
// module variable or attribute chain of unknown value, the result of a
// call whose return type is unknown, or self/cls when no class in the MRO
// defines m (a mixin calling what its subclasses define). Plain names
// (builtins, external imports, parameters holding functions) and calls on
// a known module, class or instance (the method then lives outside the
// repository, in an external base) get none, nor do dunder names, which
// every class shares. Its candidates are candidates(name).
func (t *symbolTable) byName(r reference) (string, bool) {
	if r.kind != graphdb.EdgeCalls || r.implicit || r.prop {
		return "", false
	}
	i := strings.LastIndexByte(r.expr, '.')
	if i < 0 {
		return "", false
	}
	name, prefix := r.expr[i+1:], r.expr[:i]
	if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") {
		return "", false
	}
	head, _, _ := strings.Cut(prefix, ".")
	call := strings.HasSuffix(head, "()")
	head = strings.TrimSuffix(head, "()")
	s := t.mods[r.module]
	if s == nil || head == "super" {
		return "", false
	}
	selfish := r.class != "" && (head == "self" || head == "cls")
	switch {
	case selfish:
	case r.decl != nil && r.decl.imports[head] != "":
		return "", false // imported inside the function and not in the repository
	case r.decl != nil && r.decl.locals[head]:
	case s.defs[head].id != "" && s.defs[head].cls == nil && call:
		// make().m(): a repository function whose return type is unknown
	case s.vars[head] != "" && s.imports[head] == "" && s.defs[head].id == "":
	default:
		return "", false // a builtin, an external import, a known class or module
	}
	if !selfish {
		if v, ok := t.evalExpr(evalCtx{scope: s, decl: r.decl, class: r.class}, prefix, 0); ok && (v.mod != nil || v.cls != nil || v.fn != "") {
			return "", false // the value is known: m is not the repository's
		}
	}
	return name, true
}

// candidates returns the repository's methods named name, sorted by id;
// none when there are more than maxByName.
func (t *symbolTable) candidates(name string) []graphdb.NodeID {
	if t.byNameIdx == nil {
		t.byNameIdx = map[string][]graphdb.NodeID{}
		for _, s := range t.mods {
			methodsNamed(t.byNameIdx, s, nil)
		}
		for _, ids := range t.byNameIdx {
			slices.Sort(ids)
		}
	}
	return capped(t.byNameIdx[name])
}

func capped(ids []graphdb.NodeID) []graphdb.NodeID {
	if len(ids) > maxByName {
		return nil
	}
	return ids
}

// methodsNamed adds the methods of s's module-level classes to idx by
// name (unsorted); with only, just the names in only.
func methodsNamed(idx map[string][]graphdb.NodeID, s *moduleScope, only map[string]bool) {
	for _, sym := range s.defs {
		if sym.cls == nil {
			continue
		}
		for m, id := range sym.cls.methods {
			if only == nil || only[m] {
				idx[m] = append(idx[m], id)
			}
		}
	}
}

// DESIGN: by-name candidates in incremental runs. A call's candidates are
// every method of its name in the repository, so editing one file can
// change the by-name edges of files that import nothing from it. Each
// module node lists the names its by-name calls look up (py.byname),
// those with no candidate or more than maxByName included. After the
// changed files are parsed, the candidate lists of the method names they
// declared before (their stored scope; a deleted file's too) or declare
// now are computed over the old and the new set of modules; a name whose
// list, cut off at maxByName, differs re-resolves the stored files whose
// py.byname holds it. A name that stays over the limit (get, run), a body
// edit and a method added under a name no call looks up re-resolve
// nothing. The files re-resolved are re-parsed: that costs in proportion
// to the files whose by-name edges do change, while a repository-wide pass
// over stored call sites would need the by-name edges stored apart from
// the other edges of their file (a store replaces an owner's edges whole)
// and every call site stored.

// byNameDependents lists the stored files to re-resolve because the
// candidates of a name their by-name calls look up changed, and drops
// them from stored. old holds the stored scopes of the files parsed
// because they changed and of the deleted ones; edited names the parsed
// files that changed (the other parsed files, importers of a changed
// module, declare what they declared before).
func byNameDependents(stored, old map[string]*moduleScope, files []*sourceFile, edited map[string]bool) []string {
	touched := map[string]bool{}
	for _, sc := range old {
		methodNames(sc, touched)
	}
	for _, f := range files {
		if edited[f.rel] {
			methodNames(f.scope, touched)
		}
	}
	if len(touched) == 0 {
		return nil
	}
	was, now := map[string][]graphdb.NodeID{}, map[string][]graphdb.NodeID{}
	for _, sc := range stored {
		methodsNamed(was, sc, touched)
		methodsNamed(now, sc, touched)
	}
	for _, sc := range old {
		methodsNamed(was, sc, touched)
	}
	for _, f := range files {
		methodsNamed(now, f.scope, touched)
		if !edited[f.rel] {
			methodsNamed(was, f.scope, touched)
		}
	}
	changed := map[string]bool{}
	for name := range touched {
		a, b := was[name], now[name]
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(capped(a), capped(b)) {
			changed[name] = true
		}
	}
	var out []string
	for rel, sc := range stored {
		if slices.ContainsFunc(sc.byName, func(n string) bool { return changed[n] }) {
			out = append(out, rel)
			delete(stored, rel)
		}
	}
	slices.Sort(out)
	return out
}

// methodNames adds the names of the methods of s's module-level classes
// to into.
func methodNames(s *moduleScope, into map[string]bool) {
	for _, sym := range s.defs {
		if sym.cls != nil {
			for m := range sym.cls.methods {
				into[m] = true
			}
		}
	}
}
