// Package index owns turning source code into the code graph: it reads a
// repository and writes graphdb nodes and edges, incrementally.
//
// Run is the entry point. It scans the root, compares content hashes with
// the store's FileRecords, re-extracts what changed and writes everything in
// ONE transaction (an interrupted run leaves the previous graph usable).
// A run with no change loads nothing and writes nothing. Its steps are the
// methods of runner (index.go): scan, plan (what each frontend re-extracts,
// which owners go), write (one goroutine owns the transaction), commit and
// summarize.
//
// # Go
//
// Go is indexed compiler-accurately. Package metadata comes from
// golang.org/x/tools/go/packages (`go list -deps -test`); files are parsed
// with go/parser and type-checked with go/types in dependency order, in
// parallel (GOMAXPROCS workers). Dependencies outside the repository are
// checked without function bodies and kept for later runs in the same
// process (keyed by their files' paths, sizes and modification times and
// their imports' keys); repository packages are extracted as soon as they
// are checked and their syntax is dropped.
//
// What is loaded: every module below the root (every go.mod, skipping
// testdata, vendor, node_modules, .relay and directories starting with "."
// or "_", as the go command does), each with GOWORK=off, except the modules
// a root go.work uses, which are listed together in workspace mode. A root
// that is GOROOT/src (module std, with cmd nested) works the same way.
// Test files are indexed as their own packages: the test variant of a
// package (its files plus in-package _test.go files) replaces the plain
// package, and the external _test package is indexed under its own path
// ("p_test"). Files excluded by build constraints get a file node (Attrs
// "go.excluded") and no declarations, since they would clash with the
// included ones. Directories under testdata/ (which the go command's
// wildcards skip) are listed by name; a testdata package that lists,
// parses and type-checks without error is indexed like any other (import
// path: module path + directory), its nodes marked Testdata; one that
// does not, a testdata directory inside a module of its own, and files
// outside every module are indexed from syntax alone, one file at a time
// (declarations and parent edges, no calls), with file-scoped ids, and
// their type errors are not reported (testdata is often broken on
// purpose). Their qualified names take the module path + directory, or,
// outside every module, the directory ("more/sub.Helper"); a file at the
// root of such a tree takes its package clause ("main.Server.Serve"). Packages that fail to type-check are indexed as far as
// go/types gets; every list, parse and type error is recorded in the
// file's FileRecord.Errors and returned in Summary.Errors. Errors that only
// reflect C types left opaque by not running cgo are not reported.
//
// Nodes: module (a package, SubKind "package"), file, type (SubKind struct,
// interface, alias or named), function, member (SubKind method or field;
// interface methods are members of their interface). Local types and
// functions declared inside function bodies are not nodes. One function
// node per file is synthetic: when the file's package-level variable
// initialisers make calls, they belong to a node named "init (package
// variables)" (QName "<pkg>.init", Loc "path/file.go:init#vars", Attrs
// graphdb.AttrSynthetic = "go.varinit", lines from the first to the last
// var declaration holding a call, parent edge to the file); a file whose
// vars call nothing has none.
//
// External interfaces: an interface declared outside the repository gets a
// type node (SubKind interface, id go:<qname> such as go:io.Writer, the
// id go:net/http.Handler, go:error; no File, Loc or lines; Signature listing
// its method set, "type Writer interface{ Write(p []byte) (n int, err
// error) }"; Attrs graphdb.AttrExternal = its import path, "builtin" for
// error) when it is non-generic, has at least one method and no type
// terms, and some repository package references it: names it (a type name
// in types.Info.Uses, embedding included), calls one of its methods, or
// uses an external function or method that takes or returns it (sort.Sort
// takes a sort.Interface). The methods it declares itself become member
// nodes (go:io.Writer.Write, parent edge to the interface, also external);
// methods it gets by embedding stay members of the interface that declares
// them, where calls through them land, as for repository interfaces.
//
// Node ids (unique across the repository, stable while the qname stays):
//
//	file:<repo-relative path>               file
//	go:<qname>                              type, function, method, field,
//	                                        interface method
//	"go:pkg:"<import path>                  package (module node)
//	go:<pkg>.init#<file>#<n>                the n-th init (or _) function of a file
//	go:<pkg>.init#<file>#vars               the calls of a file's package-level
//	                                        variable initialisers (VarInitID)
//	go:<file>:<Recv.Name>                   declarations in syntax-only files
//	<id>#<n>                                the n-th duplicate within a package
//	                                        (blank fields, code that redeclares)
//
// qnames are "import/path.Func", "import/path.Type.Method" (no "*", type
// parameters dropped: methods of List[T] are "path.List.Push"),
// "import/path.Type.Field"; the external test package's path ends in
// "_test". Loc is "path/file.go:Func" or "path/file.go:Recv.Method".
//
// Edges: calls (static calls of functions and methods with the call site;
// calls inside closures belong to the enclosing declaration; calls through
// an interface go to the interface method member, also when the interface
// is declared outside the repository (w.Write with w an io.Writer: the
// node go:io.Writer.Write; err.Error(): go:error.Error); calls of generic
// functions and methods go to the generic declaration; a function calling
// itself directly has a calls edge to itself; a call through a local variable bound once to a declared function and
// never reassigned (q := strconv.Quote; q(s)) is a call of that function;
// other calls of function values and func-typed fields are dynamic and not
// recorded; calls in package-level variable initialisers, closures in them
// included, come from the file's synthetic "init (package variables)"
// node, at their real sites), references (a declared function or method
// used as a value and not called at that site: h := handle,
// Register(handle), struct{fn: handle}, method values x.M and method
// expressions T.M; from the enclosing declaration or the synthetic
// variable-initialiser node, with the site), implements (named type →
// interface, external interfaces included), inherits (struct embedding,
// interface embedding; embedder → embedded, an external interface
// included), returns (function → named type among its results), param_of
// (named type → function taking it), parent (member → type, top-level
// declaration → file, file → package), imports (file → package). Other
// targets outside the repository (functions, concrete types, packages of
// dependencies) are not recorded, nor returns/param_of edges to external
// interfaces. Types in signatures are
// unwrapped through pointers, slices, arrays, maps and channels.
// decorated_by is not produced for Go.
//
// # Ownership and incremental runs
//
// Every node and edge belongs to the file that declares or produces it;
// a package's module node belongs to the pseudo-owner "@go/pkg/<path>".
// A second run re-lists only the directories holding a changed, added or
// deleted file (with their test packages); other packages are untouched.
// When a reloaded package's method sets changed, the packages embedding its
// types (module-node Attrs["go.embeds"]) are reloaded in a further pass,
// since promoted methods change their method sets too. Other dependents
// are not reloaded: their edges name targets by id. The stored owners of
// reloaded packages are deleted first inside the transaction, so a
// declaration can move between files of a package.
//
// DESIGN: implements crosses packages, so it cannot be owned by one file.
// Each package's module node carries in Attrs["go.methodsets"] the method
// set fingerprint of each of its named types: sorted lines "name signature"
// with package-qualified type strings and no parameter names (unexported
// names qualified by package path; the method set of *T for concrete
// types). At the end of every run ALL implements edges are recomputed from
// the fingerprints (fresh ones for re-loaded packages, stored ones for the
// others) and written under the single pseudo-owner "@go/implements".
// Empty interfaces and constraint interfaces take part in no implements
// edge. Interfaces whose method set includes another's get an edge to it
// (io.ReadWriter → io.Reader). Generic types take part through their
// generic declaration: a type implementing one instantiation of a generic
// interface (IntList with Push(int) and Pusher[int]) gets an edge to the
// generic interface's node, the interface's unconstrained type parameters
// matching whatever types the candidate's methods have at their place
// (see methodSets). Tests check the result against types.Implements.
// Whether only *T implements an interface is told by the nodes: a type
// node lists in Attrs["go.pointer_methods"] the methods of *T's method set
// missing from T's, from go/types method sets (so pointer receivers
// promoted through embedded fields count), and an interface node lists in
// Attrs["go.embedded_methods"] the methods it gets from the interfaces it
// embeds (graphdb.AttrPointerMethods, graphdb.AttrEmbeddedMethods).
//
// DESIGN: external interface nodes are facts about the whole repository
// too (kept exactly while some package references them), so they belong to
// "@go/implements" as well. Each package's module node lists in
// Attrs["go.extifaces"] the external interfaces it references, with their
// fingerprints and method signatures (one per line: "qname\tfingerprint
// lines\tsignatures\tdeclared method names"); every run rebuilds the
// nodes, their parent edges and the implements edges to them from those
// lists (fresh for reloaded packages, stored for the others), so editing
// or deleting the last package that references an interface removes it.
// When packages describe one qname differently (modules requiring
// different versions of a dependency), the first package in path order
// wins. Calls through external methods are owned by the calling file as
// any call; their target exists because the call itself is a reference.
//
// The format version (FormatVersion) and a hash of every go.mod/go.work are
// kept in the store's Meta; when either differs the run is a full one.
//
// # Python
//
// Python is parsed with tree-sitter (cgo; one parser per worker), a file at
// a time, then names are resolved across the repository's modules
// (python.go, pyparse.go, pyimport.go, pyresolve.go, pytypes.go, pyimplicit.go,
// pyvalues.go, pybyname.go). Files are *.py below the root;
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
// (pytypes.go): constructors (o = Order(); o.pay()), annotations on
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
// Functions used as values (pyvalues.go): a call passing a function to
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
// calls) to the repository's methods named m (pybyname.go), at most 8: a
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
// Incremental runs: see the DESIGN notes on pyFrontend.index and
// pyByNameDependents. Changed files are re-parsed; the other modules'
// scopes come from their stored nodes (module-node Attrs py.imports,
// py.stars, py.deps, py.surface; class Attrs py.bases); files importing a
// module whose surface changed, and files whose by-name calls look up a
// name whose candidates changed (py.byname), are re-resolved too. PyFormatVersion (Meta "index.py.version") versions the
// Python records apart from Go's; a change re-indexes Python only.
//
// # TypeScript and JavaScript
//
// Package index/typescript indexes TypeScript and JavaScript; its package
// doc describes how.
//
// # Java
//
// Java (.java) is parsed with tree-sitter (tree-sitter-java; cgo) in two
// passes (java.go): the first reads every changed file's declarations
// (javaparse.go, javadecl.go: javaScope), the second parses again the
// files to resolve and resolves their declared types and calls against
// the repository's scopes (javatable.go, javacall.go, javabody.go,
// javaexpr.go). All records have FileRecord.Language "java" and Module
// the file's package.
//
// Nodes: one module per package (SubKind "package", id java:pkg:<pkg>,
// File and Loc the directory of its first file; owned by the pseudo-owner
// @java/packages, rewritten on each run that changes Java), file (Attrs
// java.scope, java.surface, java.deps, java.unres), types (Kind type,
// SubKind class, interface, enum, record, annotation; member types
// nested: com.foo.Outer.Inner), members (SubKind method, constructor,
// field; enum constants and record components are fields). Ids are
// "java:" + QName. QName is package, types and member joined by dots;
// a constructor is named after its class (com.foo.C.C). Overloads: a
// method name declared more than once in a type (constructors included)
// carries its parameter types, erased to simple names, in QName and Loc
// (com.foo.Log.print(String,Object[]); varargs as arrays); a method
// declared once has none. Loc is "path/File.java:Outer.Inner.m". Local
// and anonymous classes and lambdas are no nodes: their code belongs to
// the enclosing method (or field, or the class for initialiser blocks).
// Exported: public or protected, interface members. Test: under src/test,
// or named *Test, *Tests, Test*. Syntax errors are recorded as for Python
// and the file is indexed as far as tree-sitter recovers.
//
// Types resolve as javac does, by name: type variables, member types of
// the enclosing classes and their supertypes, single-type imports, the
// package, on-demand imports, java.lang, qualified names. Edges: parent,
// imports (file → package of each import whose package is in the
// repository; static imports to the class's package), inherits (class →
// superclass, interface → extended interfaces), implements, decorated_by
// (annotation types of the repository), returns and param_of (declared
// types of the repository), calls (with the call site). Calls resolve
// through the static types of receivers: locals, parameters, fields
// (inherited, enclosing classes'), `var` from its initialiser, this,
// super, Outer.this, casts, new, method return types (class type
// variables substituted from the receiver's type arguments: a Box<Circle>'s
// get() is a Circle), array elements, string literals; static calls C.m()
// and statically imported methods; unqualified calls through the class,
// its supertypes and the enclosing classes; methods are looked up in the
// type, then its superclasses and interfaces (breadth-first; an override
// hides what it overrides). Overloads are chosen by arity, then by the
// argument types that are evident (exact, subtype or widening, boxing; a
// fixed-arity method before a varargs one). new C(…), this(…), super(…)
// and enum constants call the chosen constructor, or the class when it
// declares none; a constructor without this(…)/super(…) calls its
// superclass's no-argument constructor (a class without constructors
// does so from the class node), as javac compiles it. A lambda's
// untyped parameters take the parameter types of the abstract method of
// the functional interface the chosen callee declares for it (type
// variables through the type arguments and the receiver's); otherwise
// they are of unknown type. The JDK's collections, streams, Optional,
// Comparator and functional interfaces come from a signature table when
// the repository does not declare them (javajdk.txt, generated from javap
// by index/internal/jdktable): list.forEach(x -> x.m()), map.forEach,
// stream().filter(…).findFirst().get() and list.get(0) are typed; a
// generic method's own type variables (Stream.map's R, which javac
// infers) stay unknown, and the table's methods have no nodes and make
// no edges. The calls javac writes without a name in the source are
// recorded where the callee is the repository's: the iterator() of an
// enhanced for (hasNext() and next() when the repository declares
// java.util.Iterator, as javac calls them through it) on the line of the
// iterated value, and the close() of each try-with-resources resource on
// the resource's line.
//
// Calls that do not resolve are not invented. When the receiver's type is
// not evident (an untyped lambda parameter, an unresolved name), the
// repository's methods of that name and arity become calls_by_name
// candidates, when there are at most javaMaxByName (8) of them; an
// overload the arguments do not single out (say, an argument of unknown
// type) makes every remaining overload a candidate. A call that evidently
// goes outside the repository gives none: a receiver of a type outside it
// or the result of a method outside it, an unqualified call in a file with
// a static on-demand import of a class outside it or in a class with a
// supertype outside it. Two files declaring the same class (two source
// sets): the first in path order has the plain ids and is the one names
// resolve to; the other's ids end in "@<path>" (file Attrs java.dup).
//
// Incremental runs: see the DESIGN note on javaFrontend.index. A file is
// re-resolved when its content changed, when a file its resolution read
// (java.deps) changed its declarations (java.surface) or was deleted,
// when files were added or deleted and one of its type names did not
// resolve (java.unres), and when the candidates of one of its by-name
// calls changed: the file node's java.byname lists their names and
// argument counts (see the DESIGN note in javabyname.go). A name that
// stays over the limit of 8 re-resolves nothing. JavaFormatVersion (Meta
// "index.java.version") versions the Java records; a change re-indexes
// Java only.
//
// Java budgets (javalimits.go): member types are indexed 64 levels deep,
// statements and expressions walked 5,000 levels deep (some 2,500 nested
// calls); a file beyond them gets a diagnostic naming the line and keeps
// everything above it. The walks recurse, so these bounds are what keeps
// a crafted file from overflowing the stack, which Go cannot recover
// from; they also bound a file's qualified names to 64 times its size.
// What a file's resolution memoises is its own (javaLookup), so its
// java.deps do not depend on which goroutine resolved a type first.
// index/internal/javacheck measures the calls against javap's invoke
// instructions (BENCHMARKS.md).
//
// A relay built without cgo (CGO_ENABLED=0) has no tree-sitter: Python,
// TypeScript/JavaScript and Java files are then listed in Summary.Notes,
// one note per language, and their stored records are kept.
//
// # What is read
//
// Only what the tools may read is indexed: regular files whose real path
// lies inside the root. Files are opened beneath the root through
// internal/safefs (os.Root, O_NONBLOCK, fstat after opening), so a file
// swapped for a FIFO or a link outside the repository after the scan is
// refused, never waited on. The scan notes in Summary.Notes, by
// repository-relative path, what it does not index: files that are not
// regular (FIFOs, devices, sockets), symbolic links whose real path lies
// outside the root (.go and .py files, directories), link loops, broken
// .go/.py links, directories that cannot be read (a path too long to
// open), files that vanish; the run goes on. A link to a regular .go file
// inside the repository is listed by go list and indexed under its own
// path, as go build sees it; .py links and links to directories are not
// followed. go list reads the package directories itself, so each .go name
// the scan refused is hidden from it by a go/packages Overlay holding a
// file excluded by an impossible build constraint: go list neither opens
// it (a FIFO would block it forever) nor parses it, and nothing from it
// reaches the graph (references to its declarations are type errors, with
// no edge). A module in which the scan met an unreadable directory is
// listed by its package directories instead of "./...", which fails as a
// whole on such a directory.
//
// Every `go list` runs under Options.ListTimeout (DefaultListTimeout) and
// the run's context; on Linux it also dies with the process, even on
// SIGKILL, through the go command shim (RunGoShim, goshim.go).
//
// # The go command's environment
//
// The go command Run starts never reaches the network, switches toolchain
// or writes into the repository on the repository's behalf, whatever the
// caller's environment says (goenv.go): GOTOOLCHAIN=local, GOVCS=*:off,
// and GOPROXY=off with GOSUMDB=off unless Options.GoProxy names a proxy the
// operator allows. A module listed on its own that is not vendored gets
// -mod=mod with -modfile naming a copy of its go.mod (and go.sum) in a
// temporary directory; the caller's other GOFLAGS are kept.
//
// # Partial failure
//
// A module, package or file that cannot be loaded is listed in
// Summary.Errors and everything else is indexed; Run returns an error only
// when it wrote nothing (a go list past its timeout, a cancelled context,
// a store error). A module go list refuses as a whole (a go.mod with a
// newer go line or a syntax error) is reported by its go.mod and its Go
// files are indexed from syntax alone; an import go list cannot find is
// reported under the importing package. A package whose generic types
// expand deeper than the type checker survives (gogeneric.go:
// maxGenericGrowth) is not type-checked, and a panic while type-checking
// or extracting a package is recovered: either is reported as the
// package's error and its files are indexed from syntax.

// # Budgets per file
//
// Each Python, TypeScript/JavaScript and Java file is held to budgets
// (Options.MaxFileBytes, MaxDepth, ParseTimeout; `relay index
// --max-file-size, --max-depth, --parse-timeout`), so that one file a
// repository committed cannot end, stall or exhaust a run:
//
//   - a file over DefaultMaxFileBytes (4 MiB), or one that looks minified
//     or bundled (64 KiB or more with under one line break per 1,000
//     bytes), is not parsed: it is listed in Summary.Notes and only its
//     file node is written;
//   - each tree-sitter parse runs under a progress callback that stops it
//     after DefaultParseTimeout (30 s) or as soon as the run's context is
//     cancelled (Ctrl-C stops a parse in progress within milliseconds);
//   - a syntax tree deeper than DefaultMaxDepth (4,000 levels) is refused,
//     measured by one iterative pass before any recursive walk (a Go
//     stack overflow cannot be recovered); Java files are held to the
//     Java frontend's own nesting limits instead (javalimits.go), which
//     bound its walks and keep what lies above them;
//   - a panic while extracting one file is recovered: the file is left
//     out and its error is listed in Summary.Errors.
//
// The budgets are fingerprinted in the store (MetaBudgets): changing one
// re-indexes the tree-sitter languages in full. Parents are looked up in a
// map built by the same pass (tree-sitter's Node.Parent walks down from the
// root on every call), dotted expressions are rendered up to 64 links, and
// a Python method resolution order keeps at most 256 classes, so the cost
// of a file stays near-linear in its size. See the DESIGN note in
// budget.go; the pathological corpus (index/internal/pathcorpus) and its
// benchmark (index/internal/benchpath) exercise each case.
//
// # Other languages
//
// The orchestration (scan, diff, transaction, progress) is shared; each
// language registers a fileLang (frontend.go) and is listed, in order, in
// fileLangs (langs.go): Go (langs.go, golang.go), Python (langs.go,
// python.go), Java (javalang.go) and TypeScript/JavaScript (tslang.go).
// The scan asks the registered languages to claim each file (its source,
// its configuration files; Go's own rules — go.mod and go.work, the
// directories the go command ignores, files .gitignore hides but go list
// reads — live in Go's registration), and Run gives each present language
// its job, format version (Meta "index.<name>.version"; Python keeps
// "index.py.version") and Summary.Languages entry, in the same way. Go
// works a package at a time and reads its configuration before the plan
// (prepare, gotree.go); the tree-sitter languages work a file at a time.
// A panic while extracting one file or Go package is that unit's
// diagnostic (parseOne, goRun.checkOne), one elsewhere in a frontend the
// language's (runner.index). A repository holding several languages
// indexes them all in one transaction; Run returns ErrNoSource (its
// message naming the languages) only when there is none.
package index
