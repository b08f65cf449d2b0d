package index

import (
	"fmt"
	"go/ast"
	"sort"
)

// DESIGN: a package the type checker cannot survive is not given to it.
//
// go/types recurses once per level of a generic type's expansion (its
// validity check walks instantiations inside instantiations), and a Go
// stack overflow is fatal, not a panic: a 1 KB file with a chain of 20
// generic types, each instantiating the previous one inside itself
// (type T1[P any] struct{ f T0[T0[P]] }), expands two million levels deep,
// takes 1 GB of stack and kills the process (`go vet` dies the same way),
// and 17 levels already cost a second and 700 MB. So before checking a
// package, screenGenerics estimates from its syntax how deep its generic
// types expand, in time linear in the declarations:
//
//	growth(T)       = depth(the type expression T declares)
//	depth(U[A1…An]) = max depth(Ai) + growth(U) + 1   (U a generic type of the package)
//	depth(X[A1…An]) = max depth(Ai) + 1               (X imported: its growth is not known here)
//	depth(composite) = the largest depth of its parts; names: 0
//
// A reference to a type still being measured (a recursive type) counts 0:
// the type checker reports such cycles itself. Sums saturate. A package
// whose growth exceeds maxGenericGrowth is not type-checked: it is reported
// as the package's error and its files are indexed from syntax alone
// (declarations, no calls or types), and its importers see it as not
// loaded. The bound is far above real code (a handful of levels) and far
// below what costs the checker noticeable time or stack (growth 4094, the
// 11-level chain, checks in about 10 ms; one level more, 33 ms; see
// BenchmarkGenericChain).
//
// What the screen does not foresee is caught where it can be: checkOne
// recovers a panic of the type checker or of the extraction as the
// package's error (the files again indexed from syntax). A stack overflow
// of another shape would still end the process; running the checker in a
// child process would contain that too, at the cost of checking every
// dependency twice.
const maxGenericGrowth = 4096

// growthCap saturates the estimate so that sums cannot overflow.
const growthCap = 1 << 40

// errGenericDepth is the error of a package screenGenerics refuses.
type errGenericDepth struct {
	name   string // the type that expands deepest
	growth int64
}

func (e *errGenericDepth) Error() string {
	depth := fmt.Sprintf("about %d", e.growth)
	if e.growth >= growthCap {
		depth = fmt.Sprintf("more than %d", int64(growthCap))
	}
	return fmt.Sprintf("not type-checked: generic type %s expands to instantiations nested %s levels deep (limit %d), which would exhaust the type checker's stack; its files are indexed from syntax alone", e.name, depth, maxGenericGrowth)
}

// screenGenerics returns an *errGenericDepth when a generic type declared
// in files expands deeper than maxGenericGrowth, else nil.
func screenGenerics(files []*ast.File) error {
	s := &growthScreen{decls: map[string]*ast.TypeSpec{}, growth: map[string]int64{}, busy: map[string]bool{}}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok && ts.TypeParams != nil && ts.Name != nil {
					s.decls[ts.Name.Name] = ts
				}
			}
		}
	}
	if len(s.decls) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.decls))
	for n := range s.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	var worst *errGenericDepth
	for _, n := range names {
		if g := s.of(n); g > maxGenericGrowth && (worst == nil || g > worst.growth) {
			worst = &errGenericDepth{name: n, growth: g}
		}
	}
	if worst != nil {
		return worst
	}
	return nil
}

// growthScreen memoises the growth of a package's generic types.
type growthScreen struct {
	decls  map[string]*ast.TypeSpec // generic types declared at package level
	growth map[string]int64
	busy   map[string]bool // being measured (a recursive reference counts 0)
}

// of returns the growth of the generic type name.
func (s *growthScreen) of(name string) int64 {
	if g, ok := s.growth[name]; ok {
		return g
	}
	if s.busy[name] {
		return 0
	}
	s.busy[name] = true
	g := s.depth(s.decls[name].Type)
	delete(s.busy, name)
	s.growth[name] = g
	return g
}

// depth is the instantiation depth a type expression reaches beyond its
// type parameters. The recursion follows the syntax, whose nesting the
// parser bounds.
func (s *growthScreen) depth(e ast.Expr) int64 {
	switch e := e.(type) {
	case nil:
		return 0
	case *ast.IndexExpr:
		return s.inst(e.X, []ast.Expr{e.Index})
	case *ast.IndexListExpr:
		return s.inst(e.X, e.Indices)
	case *ast.ParenExpr:
		return s.depth(e.X)
	case *ast.StarExpr:
		return s.depth(e.X)
	case *ast.UnaryExpr: // ~T in a constraint
		return s.depth(e.X)
	case *ast.BinaryExpr: // A | B in a constraint
		return max(s.depth(e.X), s.depth(e.Y))
	case *ast.ArrayType:
		return s.depth(e.Elt)
	case *ast.Ellipsis:
		return s.depth(e.Elt)
	case *ast.MapType:
		return max(s.depth(e.Key), s.depth(e.Value))
	case *ast.ChanType:
		return s.depth(e.Value)
	case *ast.StructType:
		return s.fields(e.Fields)
	case *ast.InterfaceType:
		return s.fields(e.Methods)
	case *ast.FuncType:
		return max(s.fields(e.Params), s.fields(e.Results))
	}
	return 0 // names, qualified names, expressions that are not types
}

// inst is the depth of an instantiation x[args…].
func (s *growthScreen) inst(x ast.Expr, args []ast.Expr) int64 {
	var d int64
	for _, a := range args {
		d = max(d, s.depth(a))
	}
	var g int64
	if id, ok := x.(*ast.Ident); ok && s.decls[id.Name] != nil {
		g = s.of(id.Name)
	}
	return min(d+g+1, growthCap)
}

func (s *growthScreen) fields(fl *ast.FieldList) int64 {
	if fl == nil {
		return 0
	}
	var d int64
	for _, f := range fl.List {
		d = max(d, s.depth(f.Type))
	}
	return d
}
