// Package python indexes Python for package index: it registers Lang
// (frontend.Lang), whose frontend parses each file with tree-sitter and
// resolves names across the repository's modules.
//
// Python is parsed with tree-sitter (cgo; one parser per worker), a file at
// a time, then names are resolved across the repository's modules
// (frontend.go, parse.go, import.go, resolve.go, types.go, implicit.go,
// values.go, byname.go). Files are *.py below the root;
// directories starting with "." , site-packages, dist-packages,
// __pycache__ and virtual environments (a pyvenv.cfg) are skipped.
// Directories starting with "_" are walked for Python (the go command
// ignores them, so Go files there are not indexed). Files that the
// repository's .gitignore files (root and nested) or .git/info/exclude
// ignore are not indexed for Python and the other tree-sitter languages,
// and not reported (internal/repofs, go-git's pattern semantics); Go files
// are not filtered, since go list, which loads them, does not read
// .gitignore.
//
// Module names: the dotted path relative to the directory above the
// outermost package (directories holding __init__.py), or to the root for
// files outside packages (pkg/sub/mod.py → pkg.sub.mod, pkg/__init__.py →
// pkg, scripts/tool.py → scripts.tool); a name two files claim goes to the
// first in path order, the others are named by their full path.
//
// Nodes (Language "python"): module (SubKind "module" or "package"; id
// py:pkg:<module>; owned by its file), file (file:<path>), class (Kind
// type, SubKind class, id py:<module>.<Class>), module-level function
// (Kind function, py:<module>.<func>), method (Kind member, SubKind method,
// py:<module>.<Class>.<method>; Attrs "py.method" = staticmethod,
// classmethod or property). Declarations under module-level if/try/with
// blocks are module level; nested functions and classes are not nodes and
// their calls belong to the enclosing declaration; a name defined twice
// gets "#2". Loc is "path/file.py:Class.method"; Signature the def/class
// header without the colon; Doc the first docstring line; lines include
// decorators; Exported: no leading "_" (dunder methods are exported); Test:
// test_*.py, *_test.py, conftest.py or a file under tests/ or test/.
// Syntax errors are recorded in FileRecord.Errors (at most 10 per file)
// and the file is indexed as far as tree-sitter recovers.
//
// Edges: parent (method → class, class/function → file, file → module),
// imports (file → in-repository module, with line: `from p import m` links
// p.m when it is a module, else p), inherits (class → base class), decorated_by
// (decorated → decorator function or class; `@f(args)` → f), calls (with
// the call site; calls at module level come from the module node, calls in
// a class body outside methods from the class). Calls are resolved by name,
// statically: a plain name to the module's function or class, unless the
// enclosing function binds the name (parameters, assignments, loop and with
// targets, nested definitions); `import x [as y]` and `from x import f [as
// g]` (relative imports included, also inside functions), attribute
// chains through modules (pkg.mod.f(), Class.method()), star imports and
// re-exports (a package's __init__ importing a name); self.m()/cls.m() in a
// class to m in the class or the nearest base defining it (depth-first,
// left to right); super().m() to the bases' m, super(C, self).m() to the first m after C in the class's
// method resolution order (nothing for any other first argument); a class call to its
// __new__ and __init__ (inherited included), else to the class. Calls the
// names alone do not resolve are resolved through the types of values
// (types.go): constructors (o = Order(); o.pay()), annotations on
// parameters, variables, attributes and returns (string annotations,
// Optional[X], X | None, list[X] elements in for loops), self.x assigned
// in a method, class attributes, module-level instances, declared or
// inferred return types (make_order().pay()), cls(), aliases (f = func;
// f()) and obj() → __call__; the dunder methods `with`, `for`, `in`,
// binary operators, subscripts and len()/iter()/next()/str()/repr()/...
// call on an instance of a known class; method lookup follows the C3 MRO;
// applying a decorator is also a call from the enclosing module or class
// (besides decorated_by); reading a property calls its getter; a call
// of a function a decorator replaces (a decorator written as a name that
// returns an instance of a class) gets no edge to its body.
// The analysis is flow-insensitive: a name bound to several values is
// their union, resolved when the alternatives that resolve agree. Only
// targets inside the repository are recorded: builtins, the standard
// library when it is not the repository, and calls on values of unknown
// type are dropped. Classes, functions and module nodes keep the value
// expressions in Attrs py.attrs, py.ret and py.vars; functions and
// methods their decorators (py.decorators, builtins such as property
// left out) and whether they return their argument or a nested wrapper
// (py.identity).
// Functions used as values (values.go): a call passing a function to
// a parameter the callee calls (`apply(helper, 1)` with `def apply(f, x):
// return f(x)`, by position or keyword, one call level, across modules)
// adds the call apply → helper at apply's call of f, owned by the passing
// file; a function returned (`get()()`, `h = get(); h()`) and the
// elements of list, tuple, set and dict literals (`HANDLERS[k]()`,
// `HANDLERS.get(k)()`, `for fn in fns: fn()`) are called through their
// values; a slice of a container is the container. A function named
// where a value is used (argument, assigned, returned or yielded value,
// container element, default) gets a references edge from the enclosing
// function, class or module at that site. Functions record the
// parameters they call in Attrs py.params and py.pcalls.
// Relative imports at the top of a repository whose root is a package
// (an __init__.py at the root) resolve: `from . import x` is the root
// package's x, else the root-level module x.
// A call that resolves neither by name nor by type, written `v.m()` on a
// receiver of unknown type (a parameter or local, a module variable, the
// result of a function of unknown return type, or self/cls when no class
// in the MRO defines m, as in mixins), gets calls_by_name edges (never
// calls) to the repository's methods named m (byname.go), at most 8: a
// name more classes define gets none. Plain names, external imports,
// receivers of a known class or module and dunder names get none.
// The module node's py.byname lists the names its by-name calls look up
// (those with no candidate or more than 8 included), so that an
// incremental run re-resolves an unchanged file when the candidates of one
// of its names change: a method of that name added, renamed or removed in
// another module, a module deleted, the count crossing the limit of 8; a
// name that stays over the limit re-resolves nothing.
// index/internal/pyrightcheck measures the edges against Pyright.
//
// Incremental runs: see the DESIGN notes on indexer.Index and
// byNameDependents. Changed files are re-parsed; the other modules'
// scopes come from their stored nodes (module-node Attrs py.imports,
// py.stars, py.deps, py.surface; class Attrs py.bases); files importing a
// module whose surface changed, and files whose by-name calls look up a
// name whose candidates changed (py.byname), are re-resolved too. FormatVersion (Meta MetaVersion, "index.py.version") versions the
// Python records apart from Go's; a change re-indexes Python only.
package python
