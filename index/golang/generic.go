package golang

import (
	"fmt"
	"go/ast"
	"sort"
	"strconv"
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
//	growth(T)        = depth(the type expression T declares)
//	depth(U[A1…An])  = max depth(Ai) + growth(U) + 1
//	depth(U)         = growth(U)   (a named type; a type parameter, a predeclared type: 0)
//	depth(composite) = the largest depth of its parts
//
// U may be declared in the package or imported: the type checker expands
// imported types too, so a chain split across packages costs as much as
// one in a single package. Each package's growths are kept (gpkg.growth,
// and with a cached dependency in depCache) for its importers to look up;
// imports are checked first. A reference to a type still being measured
// (a recursive type) counts 0: the type checker reports such cycles
// itself. Sums saturate. A package
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

// screenGenerics measures the types declared in files (see the DESIGN note
// above) and returns their growth by name, with an *errGenericDepth when
// one exceeds maxGenericGrowth. imported answers the growth of a type of
// an imported package (0 when unknown) and pkgName the name of an imported
// package, for the references that do not rename it.
func screenGenerics(files []*ast.File, imported func(path, name string) int64, pkgName func(path string) string) (map[string]int64, error) {
	s := &growthScreen{decls: map[string]typeDecl{}, growth: map[string]int64{}, busy: map[string]bool{}, imported: imported}
	for _, f := range files {
		imps := map[string]string{} // name in the file → import path
		for _, is := range f.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				continue
			}
			name := ""
			if is.Name != nil {
				name = is.Name.Name
			} else if pkgName != nil {
				name = pkgName(p)
			}
			if name != "" && name != "_" && name != "." {
				imps[name] = p
			}
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name != nil {
					s.decls[ts.Name.Name] = typeDecl{spec: ts, imports: imps}
				}
			}
		}
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
		return s.growth, worst
	}
	return s.growth, nil
}

// typeDecl is a type declared at package level, with the imports of its
// file by the name they are used under.
type typeDecl struct {
	spec    *ast.TypeSpec
	imports map[string]string
}

// growthScreen memoises the growth of a package's types.
type growthScreen struct {
	decls    map[string]typeDecl
	growth   map[string]int64
	busy     map[string]bool // being measured (a recursive reference counts 0)
	imported func(path, name string) int64
	imports  map[string]string // of the declaration being measured
}

// of returns the growth of the type name declared in the package.
func (s *growthScreen) of(name string) int64 {
	if g, ok := s.growth[name]; ok {
		return g
	}
	if s.busy[name] {
		return 0
	}
	d := s.decls[name]
	s.busy[name] = true
	outer := s.imports
	s.imports = d.imports
	g := s.depth(d.spec.Type)
	s.imports = outer
	delete(s.busy, name)
	s.growth[name] = g
	return g
}

// named is the growth of a type referred to by name: a type of the
// package, or pkg.Name of an import.
func (s *growthScreen) named(x ast.Expr) int64 {
	switch x := x.(type) {
	case *ast.Ident:
		if _, ok := s.decls[x.Name]; ok {
			return s.of(x.Name)
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && s.imported != nil {
			if p, ok := s.imports[id.Name]; ok {
				return min(s.imported(p, x.Sel.Name), growthCap)
			}
		}
	}
	return 0
}

// depth is the instantiation depth a type expression reaches beyond its
// type parameters. The recursion follows the syntax, whose nesting the
// parser bounds.
func (s *growthScreen) depth(e ast.Expr) int64 {
	switch e := e.(type) {
	case nil:
		return 0
	case *ast.Ident, *ast.SelectorExpr:
		return s.named(e)
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
	return 0 // expressions that are not types
}

// inst is the depth of an instantiation x[args…].
func (s *growthScreen) inst(x ast.Expr, args []ast.Expr) int64 {
	var d int64
	for _, a := range args {
		d = max(d, s.depth(a))
	}
	return min(d+s.named(x)+1, growthCap)
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
