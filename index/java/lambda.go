//go:build cgo

package java

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// lambdaParams types the parameters of the lambdas passed to the chosen
// method c: a parameter whose declared type is a functional interface of
// the repository gives each lambda parameter the type of the interface's
// abstract method's parameter, with the interface's type variables taken
// from the parameter's type arguments and the method class's from the
// receiver (list.forEach(s -> s.m()) on a List<Shape>: s is a Shape). The
// types are kept until walk reaches the lambda.
func (w *walker) lambdaParams(c methodRef, argNodes []*sitter.Node, recv value) {
	for i, a := range argNodes {
		if a.Kind() != "lambda_expression" || len(c.m.Params) == 0 {
			continue
		}
		p := c.m.Params[min(i, len(c.m.Params)-1)]
		if c.m.Varargs && i >= len(c.m.Params)-1 {
			p = strings.TrimSuffix(p, "...")
		}
		fi := w.l.resolve(c.t.scope, c.t, p)
		if fi == nil || fi.Kind != "interface" {
			continue
		}
		sam := singleAbstract(fi)
		if sam == nil {
			continue
		}
		targs := typeArgs(p)
		vals := make([]value, len(sam.Params))
		for k, sp := range sam.Params {
			vals[k] = w.samParam(c, fi, sp, targs, recv)
		}
		if w.lambdas == nil {
			w.lambdas = map[uintptr][]value{}
		}
		w.lambdas[a.Id()] = vals
	}
}

// samParam types one parameter of the abstract method of fi as seen
// through the written type arguments targs of c's parameter.
func (w *walker) samParam(c methodRef, fi *typeDef, sp string, targs []string, recv value) value {
	name, dims := erase(sp)
	for j, tp := range fi.TParams {
		if tp != name || j >= len(targs) || dims > 0 {
			continue
		}
		a := strings.TrimSpace(targs[j])
		a = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(a, "? super "), "? extends "))
		if a == "?" {
			return value{}
		}
		return w.l.typeVal(c.t.scope, c.t, a, c.m.TParams, recv)
	}
	return w.l.typeVal(fi.scope, fi, sp, nil, value{})
}

// singleAbstract is the single abstract method of a functional interface
// declared in it (Object's methods aside); nil when there is not exactly
// one.
func singleAbstract(fi *typeDef) *methodDef {
	var sam *methodDef
	for _, m := range fi.Methods {
		if !m.Abstract || m.Static || m.Name == "equals" || m.Name == "hashCode" || m.Name == "toString" {
			continue
		}
		if sam != nil {
			return nil
		}
		sam = m
	}
	return sam
}
