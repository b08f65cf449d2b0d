// Package implsearch decides by brute force whether a type implements a
// generic interface, for the checks that hold the indexer's implements
// edges against go/types (index tests and index/internal/callcheck).
//
// The indexer matches a type with a generic interface by correspondence
// (index/golang's methodSets): a type implements a generic interface when it
// implements one of its instantiations, the interface's unconstrained type
// parameters standing for whatever types the type's methods use, its
// constrained ones for the type's own type argument at the same position.
// This package finds such an instantiation by trying them all, without the
// indexer's fingerprints, so that the two answers can be compared.
//
// Generic candidates and interfaces are instantiated with the distinct
// placeholder types PosArgs (A0, A1, … in package example.com/args), one
// per position.
package implsearch

import (
	"fmt"
	"go/types"
	"strconv"
)

// PosArgs are distinct named types standing for type arguments by
// position; position k beyond the last reuses PosArgs[k%len(PosArgs)].
var PosArgs = func() []types.Type {
	pkg := types.NewPackage("example.com/args", "args")
	var out []types.Type
	for i := range 8 {
		tn := types.NewTypeName(0, pkg, "A"+strconv.Itoa(i), nil)
		out = append(out, types.NewNamed(tn, types.Typ[types.Int], nil))
	}
	return out
}()

func posArg(k int) types.Type { return PosArgs[k%len(PosArgs)] }

// Instantiate returns n itself when it is not generic, else n instantiated
// with PosArgs by position. Constraints are not checked: the
// correspondence by position is what is compared, and a placeholder
// satisfies no constraint but the empty one.
func Instantiate(n *types.Named) (types.Type, error) {
	tps := n.TypeParams()
	if tps.Len() == 0 {
		return n, nil
	}
	args := make([]types.Type, tps.Len())
	for i := range args {
		args[i] = posArg(i)
	}
	inst, err := types.Instantiate(nil, n, args, false)
	if err != nil {
		return nil, fmt.Errorf("instantiate %s: %w", n, err)
	}
	return inst, nil
}

// ImplementsSome reports whether typ implements iface or, when iface is
// generic, one of its instantiations: each type parameter constrained by
// the empty interface ranges over every type occurring in typ's method
// signatures (the only types that can make a method identical), each
// constrained one is the placeholder PosArgs at its position.
//
// An instantiation go/types refuses counts as not implemented; without
// constraint checks it refuses only a wrong number of arguments, which
// cannot happen here.
func ImplementsSome(typ types.Type, iface *types.Named) bool {
	tps := iface.TypeParams()
	if tps.Len() == 0 {
		return types.Implements(typ, iface.Underlying().(*types.Interface))
	}
	comps := SigComponents(typ)
	choices := make([][]types.Type, tps.Len())
	for k := range choices {
		if it, ok := tps.At(k).Constraint().Underlying().(*types.Interface); ok && it.Empty() {
			choices[k] = comps
		} else {
			choices[k] = []types.Type{posArg(k)}
		}
	}
	args := make([]types.Type, tps.Len())
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(args) {
			inst, err := types.Instantiate(nil, iface, args, false)
			return err == nil && types.Implements(typ, inst.Underlying().(*types.Interface))
		}
		for _, c := range choices[k] {
			args[k] = c
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// maxDepth bounds how deep SigComponents descends into composite types.
const maxDepth = 8

// SigComponents returns, without duplicates and in the order first met,
// every type occurring in the method signatures of typ's method set:
// parameter and result types and the types they are built from (elements,
// keys, nested signatures' parameters and results, type arguments), down to
// maxDepth levels below a parameter or result.
func SigComponents(typ types.Type) []types.Type {
	var out []types.Type
	var walk func(t types.Type, depth int)
	walk = func(t types.Type, depth int) {
		if depth > maxDepth {
			return
		}
		for _, o := range out {
			if types.Identical(o, t) {
				return
			}
		}
		out = append(out, t)
		switch t := t.(type) {
		case *types.Pointer:
			walk(t.Elem(), depth+1)
		case *types.Slice:
			walk(t.Elem(), depth+1)
		case *types.Array:
			walk(t.Elem(), depth+1)
		case *types.Chan:
			walk(t.Elem(), depth+1)
		case *types.Map:
			walk(t.Key(), depth+1)
			walk(t.Elem(), depth+1)
		case *types.Signature:
			walkSig(t, func(t types.Type) { walk(t, depth+1) })
		case *types.Named:
			for i := 0; i < t.TypeArgs().Len(); i++ {
				walk(t.TypeArgs().At(i), depth+1)
			}
		}
	}
	ms := types.NewMethodSet(typ)
	for i := 0; i < ms.Len(); i++ {
		walkSig(ms.At(i).Obj().Type().(*types.Signature), func(t types.Type) { walk(t, 0) })
	}
	return out
}

// walkSig calls f with each parameter type of sig, then each result type.
func walkSig(sig *types.Signature, f func(types.Type)) {
	for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := 0; i < tup.Len(); i++ {
			f(tup.At(i).Type())
		}
	}
}
