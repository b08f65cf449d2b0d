"""Reference call edges for relay's Python indexer, computed with ast + symtable.

Usage: python3 pycheck.py ROOT > edges.tsv

Prints one line per call site of two kinds Python's own tools resolve exactly:
  plain  a call f(...) of a function defined once at module level in the same
         module (and bound nowhere else at module level), whose name the
         enclosing function's symbol table says is global;
  self   a call self.m(...) directly inside a method (first parameter self) of a
         module-level class that defines m once in its body.
Columns: kind, caller loc, callee loc ("" when the site is in the subset but
resolves elsewhere: shadowed, or m not defined by the class), line.
The caller is the outermost function or method, as relay attributes calls.
"""
import ast
import os
import sys
import symtable

SKIP = {"site-packages", "dist-packages", "__pycache__", "node_modules", "vendor"}


def module_defs(tree):
    """Module-level statements, through if/try/with/for/while blocks."""
    out = []

    def walk(body):
        for st in body:
            out.append(st)
            for field in ("body", "orelse", "finalbody"):
                if isinstance(st, (ast.If, ast.Try, ast.With, ast.For, ast.While)) and hasattr(st, field):
                    walk(getattr(st, field))
            if isinstance(st, ast.Try):
                for h in st.handlers:
                    walk(h.body)
    walk(tree.body)
    return out


def bound_names(st):
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [st.name]
    names = []
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        for a in st.names:
            names.append((a.asname or a.name).split(".")[0])
    elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.append(n.id)
    return names


def scopes_by_line(table):
    """Function symbol tables keyed by (name, lineno)."""
    out = {}
    stack = [table]
    while stack:
        t = stack.pop()
        if t.get_type() == "function":
            out[(t.get_name(), t.get_lineno())] = t
        stack.extend(t.get_children())
    return out


def check(rel, src, emit):
    try:
        tree = ast.parse(src)
        table = symtable.symtable(src, rel, "exec")
    except (SyntaxError, ValueError):
        return
    stmts = module_defs(tree)
    counts = {}
    funcs = set()
    for st in stmts:
        for n in bound_names(st):
            counts[n] = counts.get(n, 0) + 1
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs.add(st.name)
    # Any other module-level binding (global statements in functions, star imports) makes a name unsafe.
    unsafe = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            unsafe.update(n.names)
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return
    plain = {f for f in funcs if counts.get(f) == 1 and f not in unsafe}
    fscopes = scopes_by_line(table)

    def calls_in(fn, caller, cls):
        # Walk fn's body; track the innermost function scope.
        def visit(node, scope, direct):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    name = child.name if not isinstance(child, ast.Lambda) else "lambda"
                    inner = fscopes.get((name, child.lineno))
                    if isinstance(child, ast.Lambda) or inner is None:
                        visit(child, None, False)
                    else:
                        for d in child.decorator_list:
                            visit(d, scope, direct)
                        visit(child, inner, False)
                    continue
                if isinstance(child, ast.ClassDef):
                    visit(child, None, False)
                    continue
                if isinstance(child, ast.Call):
                    f = child.func
                    if isinstance(f, ast.Name) and f.id in plain and scope is not None:
                        try:
                            sym = scope.lookup(f.id)
                            ok = sym.is_global() and not sym.is_declared_global()
                        except KeyError:
                            ok = False
                        emit("plain", caller, rel + ":" + f.id if ok else "", child.lineno)
                    if (cls is not None and direct and isinstance(f, ast.Attribute)
                            and isinstance(f.value, ast.Name) and f.value.id == "self"):
                        m = f.attr
                        target = rel + ":" + cls.name + "." + m if cls_methods.get(m) == 1 and not self_rebound else ""
                        emit("self", caller, target, child.lineno)
                visit(child, scope, direct)
        top = fscopes.get((fn.name, fn.lineno))
        for a in fn.args.defaults + fn.args.kw_defaults:
            pass  # defaults are evaluated in the enclosing scope: not in the subset
        for st in fn.body:
            visit(ast.Module(body=[st], type_ignores=[]), top, True)

    for st in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cls_methods, self_rebound = {}, False
            calls_in(st, rel + ":" + st.name, None)
        elif isinstance(st, ast.ClassDef):
            cls_methods = {}
            for b in st.body:
                for n in bound_names(b):
                    cls_methods[n] = cls_methods.get(n, 0) + (1 if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) else 2)
            for b in st.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = b.args.posonlyargs + b.args.args
                    is_self = bool(args) and args[0].arg == "self" and not any(
                        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in b.decorator_list)
                    self_rebound = any(isinstance(n, ast.Name) and n.id == "self" and isinstance(n.ctx, ast.Store)
                                       for n in ast.walk(b))
                    calls_in(b, rel + ":" + st.name + "." + b.name, st if is_self else None)


def main():
    root = sys.argv[1]
    out = sys.stdout
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP and not x.startswith(".")
                         and not os.path.exists(os.path.join(d, x, "pyvenv.cfg")))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root).replace(os.sep, "/")
            try:
                with open(p, "rb") as fh:
                    src = fh.read().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue

            def emit(kind, caller, callee, line):
                out.write(f"{kind}\t{caller}\t{callee}\t{line}\n")
            check(rel, src, emit)


if __name__ == "__main__":
    main()
