// Package cpp indexes C++ for package index: it registers Lang
// (frontend.Lang), whose frontend parses each file with tree-sitter
// (tree-sitter-cpp; cgo) and resolves types and calls across the
// repository's files.
//
// Files: .cc, .cpp, .cxx, .hpp, .hh, .hxx and .h (lang.go: isSource).
// A .h header is C++'s in a repository with C++ sources of its own and
// C's otherwise: the C frontend (index/c, registered before C++) claims
// .h first and yields its headers to C++ when the scan finds C++ sources
// (frontend.Lang.Yields, index/c's package doc); without a C frontend
// C++ claims them itself. All records have FileRecord.Language "cpp"
// and Module the file's first namespace.
//
// Two passes (frontend.go): the first reads every changed file's
// declarations (parse.go, func.go: fileScope), the second parses again
// the files to resolve and, against a table of every file's scope
// (table.go), emits their nodes and resolves their calls (resolve.go,
// body.go, expr.go).
//
// Nodes: one module per namespace (SubKind "namespace", id
// cpp:ns:<a::b>, owned by the pseudo-owner @cpp/namespaces; an inline
// namespace adds no name, so fmt::v11::format is fmt::format), file
// (Attrs cpp.scope, cpp.surface, cpp.deps, cpp.unres, cpp.byname), types
// (Kind type, SubKind class, struct, union, enum; a class template is
// one node with Attrs cpp.template; an explicit specialization is a node
// of its own named with its arguments, fmt::formatter<int>), members
// (SubKind method, constructor, field) and free functions (Kind
// function). Ids are "cpp:" + QName, names joined by "::"; a name
// declared more than once with different parameter types (overloads)
// carries them in its id: cpp:ns::print(const char*). A function or
// method is one node however many times it is declared: the first
// definition in path order, else the first declaration. So a method
// defined out of line (`void Foo::bar() {}` in foo.cc) is the class's
// method node, placed at its definition, its parent the class; a
// function declared in a header and defined in a source file is the
// definition's node. A type declared with the same name in two files
// (two test programs) keeps the plain id in the first file in path
// order; the others' ids end in "@<path>", and lookups from a file
// prefer its own. A function of a file's own (static, in an unnamed
// namespace) ends in "@<path>" too. Loc is "path:Class.method" (the
// namespaces left out, as for the other languages). Exported: not
// static nor in an unnamed namespace, and public or protected in its
// class (struct members default to public). Test: under test/ or
// tests/, or named *_test, *-test, test_*, *_unittest.
//
// Edges: parent (member → class, declaration → file, nested class →
// class, file → each namespace it declares into, namespace → its parent
// namespace), imports (file → file of each quoted #include found
// relative to the file, else the file whose path ends in the include's,
// the shortest first: the include directories a build names are not
// read), inherits (class → each base of the repository), implements (a
// method → the virtual method of the nearest base it overrides: same
// name and number of parameters), returns and param_of (declared types of
// the repository), calls (with the call site).
//
// Calls resolve as the compiler's name lookup does, where the types are
// evident: unqualified names through the class, its bases and enclosing
// classes, then the enclosing namespaces outwards and the
// using-directives in effect; qualified names through classes (static
// methods, Base::f(), constructors) and namespaces; a.f() and p->f()
// through the declared types of locals, parameters, fields (the class's
// and its bases'), this, casts, new T, T(…), `auto` from its initialiser
// (new T, T(…), a call's declared return type), smart pointers
// (std::unique_ptr<T>, std::shared_ptr<T>: p->f() is T's). new T(…),
// T x(…) and member initialisers (Base(…), field_(…)) call the
// constructor the arguments choose. Operators on objects of the
// repository's classes (a[i], a = b, a + b, ++a, *a; not on pointers or
// enums) call the class's operator or a free one (a friend) of its
// namespace taking the class or a base. Overloads are chosen by arity
// (default arguments, wherever declared, and variadics counted), then by
// the argument types that are evident (literals, built-in and class
// types of locals, parameters and calls, pointers and arrays): the
// candidate matching most of them, when one does; between methods that
// differ by const alone, by the receiver's constness. A call with
// template arguments names an explicit specialization when the
// repository declares one (width<bool>()). Templates are not
// instantiated: a call through a template parameter's type is not
// evident. A call a macro of the repository expands to is a call of the
// function the macro is used in (macro.go).
//
// Calls that do not resolve are not invented. std:: calls and calls on
// receivers of types outside the repository (built-in, std::, a
// library's namespace) give no edge; a call on a receiver whose type is
// not evident, an unqualified call the lookup does not find, and
// overloads the arguments do not single out give calls_by_name
// candidates: the repository's functions and methods of that name (and
// arity), at most maxByName (8). Calls through function pointers and
// lambdas held in variables are not calls here; nor are the implicit
// ones (conversions, copies, destructors). A name means a declaration of
// the file itself or of a header (a source file's own declarations are
// not another's; the tests' headers are the tests' only).
//
// Incremental runs: see the DESIGN note on indexer.Index. FormatVersion
// (Meta "index.cpp.version") versions the C++ records; a change
// re-indexes C++ only. A file tree-sitter cannot parse entirely is
// indexed as far as it recovers, its syntax errors recorded on its file
// record and reported. A relay built without cgo has no tree-sitter:
// Lang is registered unavailable (nocgo.go) and package index notes the
// C++ files instead of indexing them.
package cpp
