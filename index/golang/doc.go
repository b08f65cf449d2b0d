// Package golang is relay's Go frontend: package index runs it (Lang,
// registered in index's list of languages) on the Go files and go.mod /
// go.work files of a repository, and writes what it extracts into the code
// graph. It also exports the extraction for checkers that compare it with
// other call graphs (ExtractCalls, ExtractImplements, FuncID, VarInitID)
// and the location names for tools that name functions without indexing
// (FuncLocName).
//
// # What is indexed
//
// Go is indexed compiler-accurately. Package metadata comes from
// golang.org/x/tools/go/packages (`go list -deps -test`); files are parsed
// with go/parser and type-checked with go/types in dependency order, in
// parallel (GOMAXPROCS workers). Dependencies are checked without function
// bodies; with a type cache (index.Options.CacheDir) they are loaded from
// the export data earlier runs wrote instead, and without one those
// outside the repository are kept for later runs in the same process
// (keyed by their files' paths, sizes and modification times and their
// imports' keys). Repository packages are extracted as soon as they are
// checked and their syntax is dropped.
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
// a package's module node belongs to the pseudo-owner "@go/pkg/<path>",
// whose FileRecord.Hash is the package's API fingerprint (apihash.go): the
// text of its declarations and of every declaration of other packages they
// reach, without positions. A second run
// re-lists only the directories holding a changed, added or deleted file
// (with their test packages); other packages are untouched. When a
// reloaded package's fingerprint changed, or the package vanished, the
// packages importing it (the imports edges into its module node) are
// reloaded in a further pass, and so on while fingerprints change: what
// they type-check against changed, and with it their errors, calls and
// method sets. A body-only edit reloads its package alone. The stored
// owners of reloaded packages are deleted first inside the transaction,
// so a declaration can move between files of a package.
//
// With index.Options.CacheDir set, the packages a run does not extract
// come from a type cache (typecache.go: export data written by the runs
// that checked them) instead of being parsed and checked again; an edit
// checks from source only the packages it reloads and the test variants
// built on them. The graph is the same either way.
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
// # What go list reads
//
// The scan of package index notes the .go files it refuses (not regular,
// links outside the repository, loops) in Summary.Notes. A link to a
// regular .go file inside the repository is listed by go list and indexed
// under its own path, as go build sees it; links to directories are not
// followed. go list reads the package directories itself, so each .go
// name the scan refused is hidden from it by a go/packages Overlay holding
// a file excluded by an impossible build constraint: go list neither opens
// it (a FIFO would block it forever) nor parses it, and nothing from it
// reaches the graph (references to its declarations are type errors, with
// no edge). A module in which the scan met an unreadable directory is
// listed by its package directories instead of "./...", which fails as a
// whole on such a directory.
//
// Every `go list` runs under index.Options.ListTimeout
// (index.DefaultListTimeout) and the run's context; on Linux it also dies
// with the process, even on SIGKILL, through the go command shim
// (RunGoShim; index/golang/internal/goshim).
//
// # The go command's environment
//
// The go command index.Run starts never reaches the network, switches
// toolchain or writes into the repository on the repository's behalf,
// whatever the caller's environment says (env.go): GOTOOLCHAIN=local,
// GOVCS=*:off, and GOPROXY=off with GOSUMDB=off unless
// index.Options.GoProxy names a proxy the operator allows. A module listed
// on its own that is not vendored gets -mod=mod with -modfile naming a
// copy of its go.mod (and go.sum) in a temporary directory; the caller's
// other GOFLAGS are kept.
//
// # Partial failure
//
// A module, package or file that cannot be loaded is listed in
// Summary.Errors and everything else is indexed. A module go list refuses
// as a whole (a go.mod with a newer go line or a syntax error) is
// reported by its go.mod and its Go files are indexed from syntax alone;
// an import go list cannot find is reported under the importing package.
// A package whose generic types expand deeper than the type checker
// survives (generic.go: maxGenericGrowth) is not type-checked, and a
// panic while type-checking or extracting a package is recovered: either
// is reported as the package's error and its files are indexed from
// syntax.
package golang
