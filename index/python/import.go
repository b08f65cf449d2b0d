//go:build cgo

package python

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// importStmt records an import statement: its bindings (module scope when
// d is nil, else d's) and the modules it names.
func (x *extractor) importStmt(st *sitter.Node, d *decl) {
	bindTo := func(local, target string) {
		if d != nil {
			d.imports[local] = target
			delete(d.locals, local)
			return
		}
		if _, bound := x.f.scope.imports[local]; bound && x.inMain {
			return
		}
		x.f.scope.imports[local] = target
	}
	stmt := importStmt{line: sitter.Line(st)}
	switch st.Kind() {
	case "import_statement":
		for _, c := range sitter.Children(st) {
			switch c.Kind() {
			case "dotted_name":
				m := x.text(c)
				bindTo(strings.SplitN(m, ".", 2)[0], strings.SplitN(m, ".", 2)[0])
				stmt.mods = append(stmt.mods, m)
			case "aliased_import":
				m := x.text(fieldChild(c, "name"))
				bindTo(x.text(fieldChild(c, "alias")), m)
				stmt.mods = append(stmt.mods, m)
			}
		}
	case "import_from_statement":
		stmt.from = true
		mn := fieldChild(st, "module_name")
		if mn == nil {
			return
		}
		base := x.text(mn)
		if mn.Kind() == "relative_import" {
			base = x.relative(mn)
			if base == "" {
				return
			}
		}
		for _, c := range sitter.Children(st) {
			if c.Equals(*mn) {
				continue
			}
			switch c.Kind() {
			case "dotted_name":
				nm := x.text(c)
				bindTo(nm, joinDots(base, nm))
				stmt.mods = append(stmt.mods, joinDots(base, nm))
			case "aliased_import":
				nm := x.text(fieldChild(c, "name"))
				bindTo(x.text(fieldChild(c, "alias")), joinDots(base, nm))
				stmt.mods = append(stmt.mods, joinDots(base, nm))
			case "wildcard_import":
				if d == nil {
					x.f.scope.stars = append(x.f.scope.stars, base)
				}
			}
		}
		stmt.mods = append(stmt.mods, base)
	default:
		return
	}
	x.f.imports = append(x.f.imports, stmt)
}

// relative resolves `from ..x import` against the file's module.
func (x *extractor) relative(n *sitter.Node) string {
	dots, rest := 0, ""
	for _, c := range sitter.Children(n) {
		switch c.Kind() {
		case "import_prefix":
			dots = strings.Count(x.text(c), ".")
		case "dotted_name":
			rest = x.text(c)
		}
	}
	pkg := strings.Split(x.f.module, ".")
	if !x.f.isPkg {
		pkg = pkg[:len(pkg)-1]
	}
	if dots-1 > len(pkg) {
		return ""
	}
	pkg = pkg[:len(pkg)-(dots-1)]
	if base := joinDots(strings.Join(pkg, "."), rest); base != "" {
		return base
	}
	// `from . import x` at the top: the repository root is the package
	// (its __init__.py is module "__init__", its modules are named without
	// a prefix); symbolTable.abs falls back from __init__.x to module x.
	return "__init__"
}

func joinDots(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}
