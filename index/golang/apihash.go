package golang

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/types"
	"hash"
	"regexp"
	"sort"
)

// apiHash fingerprints what importers see of pkg: every package-level
// declaration (exported or not: unexported fields and methods decide
// assignability, comparability and method sets) and, for every named type
// of another package they reach, its declaration too, transitively — what
// deep export data would carry, without positions (which a body edit moves).
//
// DESIGN: the fingerprint is text written from go/types (types.TypeString
// with packages named by path, methods sorted by name, constant values
// exact), not the export data's bytes: export data deduplicates types by
// pointer, so its bytes differ between a package checked against
// dependencies from source and one checked against dependencies loaded
// from export data, although the types are the same. The text depends on
// the types alone, so a body-only edit leaves it as it was whichever way the
// dependencies were loaded.
func apiHash(pkg *types.Package) string {
	w := &apiWriter{h: sha256.New(), pkg: pkg, seen: map[*types.TypeName]bool{}}
	w.qual = func(p *types.Package) string { return p.Path() }
	fmt.Fprintf(w.h, "package %s %s\n", pkg.Path(), pkg.Name())
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		w.object(scope.Lookup(name))
	}
	for len(w.queue) > 0 {
		tn := w.queue[0]
		w.queue = w.queue[1:]
		w.object(tn)
	}
	return "api:" + hex.EncodeToString(w.h.Sum(nil))
}

// apiWriter writes declarations and queues the named types of other
// packages they reach.
type apiWriter struct {
	h     hash.Hash
	pkg   *types.Package // its own declarations are written in scope order
	qual  types.Qualifier
	seen  map[*types.TypeName]bool
	queue []*types.TypeName
}

func (w *apiWriter) object(obj types.Object) {
	pkg := ""
	if obj.Pkg() != nil {
		pkg = obj.Pkg().Path()
	}
	switch o := obj.(type) {
	case *types.TypeName:
		w.seen[o] = true
		fmt.Fprintf(w.h, "type %s.%s alias=%v %s\n", pkg, o.Name(), o.IsAlias(), w.typ(o.Type().Underlying()))
		if a, ok := o.Type().(*types.Alias); ok {
			fmt.Fprintf(w.h, "\t= %s\n", w.typ(a.Rhs()))
			w.tparams(a.TypeParams())
		}
		if n, ok := o.Type().(*types.Named); ok && !o.IsAlias() {
			w.tparams(n.TypeParams())
			ms := make([]*types.Func, 0, n.NumMethods())
			for i := 0; i < n.NumMethods(); i++ {
				ms = append(ms, n.Method(i))
			}
			sort.Slice(ms, func(i, j int) bool { return ms[i].Id() < ms[j].Id() })
			for _, m := range ms {
				sig := m.Type().(*types.Signature)
				// The receiver (T or *T) decides the method sets of T and *T.
				fmt.Fprintf(w.h, "\tmethod %s (%s) %s\n", m.Id(), types.TypeString(sig.Recv().Type(), w.qual), w.typ(sig))
			}
		}
	case *types.Const:
		fmt.Fprintf(w.h, "const %s.%s %s = %s\n", pkg, o.Name(), w.typ(o.Type()), o.Val().ExactString())
	default:
		fmt.Fprintf(w.h, "%T %s.%s %s\n", obj, pkg, obj.Name(), w.typ(obj.Type()))
	}
}

func (w *apiWriter) tparams(l *types.TypeParamList) {
	for i := 0; i < l.Len(); i++ {
		fmt.Fprintf(w.h, "\ttparam %s %s\n", l.At(i).Obj().Name(), w.typ(l.At(i).Constraint()))
	}
}

// typ returns t's text and queues the named types of other packages in it.
// The empty interface is always "interface{}": go/types prints it "any"
// where the source wrote any, and export data does not keep which.
func (w *apiWriter) typ(t types.Type) string {
	w.reach(t, map[types.Type]bool{})
	return anyWord.ReplaceAllString(types.TypeString(t, w.qual), "${1}interface{}")
}

// anyWord is the predeclared any in a type's text (a type named any in a
// package is printed qualified, "p.any").
var anyWord = regexp.MustCompile(`(^|[^.\w])any\b`)

// reach queues the declared types t mentions.
func (w *apiWriter) reach(t types.Type, visiting map[types.Type]bool) {
	if t == nil || visiting[t] {
		return
	}
	visiting[t] = true
	switch t := t.(type) {
	case *types.Named:
		w.enqueue(t.Obj())
		args := t.TypeArgs()
		for i := 0; i < args.Len(); i++ {
			w.reach(args.At(i), visiting)
		}
	case *types.Alias:
		w.enqueue(t.Obj())
		w.reach(t.Rhs(), visiting)
	case *types.Pointer:
		w.reach(t.Elem(), visiting)
	case *types.Slice:
		w.reach(t.Elem(), visiting)
	case *types.Array:
		w.reach(t.Elem(), visiting)
	case *types.Chan:
		w.reach(t.Elem(), visiting)
	case *types.Map:
		w.reach(t.Key(), visiting)
		w.reach(t.Elem(), visiting)
	case *types.Signature:
		w.reach(t.Params(), visiting)
		w.reach(t.Results(), visiting)
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			w.reach(t.At(i).Type(), visiting)
		}
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			w.reach(t.Field(i).Type(), visiting)
		}
	case *types.Interface:
		for i := 0; i < t.NumEmbeddeds(); i++ {
			w.reach(t.EmbeddedType(i), visiting)
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			w.reach(t.ExplicitMethod(i).Type(), visiting)
		}
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			w.reach(t.Term(i).Type(), visiting)
		}
	case *types.TypeParam:
		w.reach(t.Constraint(), visiting)
	}
}

// enqueue queues a package-level type of another package not written yet
// (the package's own declarations are all written; local types are not
// package-level and not visible to importers).
func (w *apiWriter) enqueue(tn *types.TypeName) {
	if tn == nil || tn.Pkg() == nil || tn.Pkg() == w.pkg || w.seen[tn] || tn.Parent() != tn.Pkg().Scope() {
		return
	}
	w.seen[tn] = true
	w.queue = append(w.queue, tn)
}
