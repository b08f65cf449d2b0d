//go:build cgo

package python

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// binaryDunders maps binary operators to the method of the left operand
// they call.
var binaryDunders = map[string]string{
	"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__",
	"%": "__mod__", "**": "__pow__", "@": "__matmul__", "&": "__and__", "|": "__or__",
	"^": "__xor__", "<<": "__lshift__", ">>": "__rshift__",
}

// builtinDunders maps builtins of one argument to the method they call.
var builtinDunders = map[string]string{
	"len": "__len__", "iter": "__iter__", "next": "__next__", "repr": "__repr__",
	"str": "__str__", "hash": "__hash__", "bool": "__bool__", "abs": "__abs__",
}

// implicit records the dunder methods a construct calls on a value
// (`with v`, `for x in v`, `k in v`, `v + w`, `v[k]`, len(v), ...); they
// resolve only when the value's class is known and defines the method.
func (x *extractor) implicit(n *sitter.Node, kind string, owner graphdb.NodeID, class string, d *decl) {
	add := func(v *sitter.Node, methods ...string) {
		ty := x.valueType(v)
		if !strings.HasPrefix(ty, "v:") {
			return
		}
		for _, m := range methods {
			x.f.refs = append(x.f.refs, reference{from: owner, kind: graphdb.EdgeCalls, expr: ty[2:] + "." + m, line: sitter.Line(v),
				class: class, decl: d, module: x.f.module, implicit: true})
		}
	}
	switch kind {
	case "with_item":
		if v := fieldChild(n, "value"); v != nil {
			if v.Kind() == "as_pattern" && v.NamedChildCount() > 0 {
				v = v.NamedChild(0)
			}
			add(v, "__enter__", "__exit__")
		}
	case "for_statement", "for_in_clause":
		add(fieldChild(n, "right"), "__iter__")
	case "binary_operator":
		if op := fieldChild(n, "operator"); op != nil && binaryDunders[x.text(op)] != "" {
			add(fieldChild(n, "left"), binaryDunders[x.text(op)])
		}
	case "comparison_operator":
		cs := sitter.Children(n)
		for _, c := range sitter.AllChildren(n) {
			if !c.IsNamed() && x.text(c) == "in" && len(cs) == 2 {
				add(cs[1], "__contains__")
			}
		}
	case "subscript":
		add(fieldChild(n, "value"), "__getitem__")
	case "call":
		f, args := fieldChild(n, "function"), fieldChild(n, "arguments")
		if f != nil && f.Kind() == "identifier" && builtinDunders[x.text(f)] != "" && args != nil && args.NamedChildCount() == 1 {
			add(args.NamedChild(0), builtinDunders[x.text(f)])
		}
	}
}

// withAliasType types the target of `with E as name`: what E.__enter__()
// returns; parent is as's parent when the walk knows it (nil: looked up).
func (x *extractor) withAliasType(as, parent, alias *sitter.Node, d *decl) {
	if alias.Kind() == "as_pattern_target" && alias.NamedChildCount() == 1 {
		alias = alias.NamedChild(0)
	}
	if alias.Kind() != "identifier" {
		return
	}
	ty := unknownType
	if parent == nil {
		parent = x.parentOf(as)
	}
	if p := parent; p != nil && p.Kind() == "with_item" && as.NamedChildCount() > 0 {
		if v := x.valueType(as.NamedChild(0)); strings.HasPrefix(v, "v:") {
			ty = v + ".__enter__()"
		}
	}
	bindType(d.types, x.text(alias), ty)
}
