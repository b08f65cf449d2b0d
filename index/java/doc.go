// Package java indexes Java for package index: it registers Lang
// (frontend.Lang), whose frontend parses each file with tree-sitter and
// resolves types and calls across the repository's files, with a table
// of the JDK's signatures (jdk.txt) for the types a repository uses
// without declaring them.
//
// Java (.java) is parsed with tree-sitter (tree-sitter-java; cgo) in two
// passes (frontend.go): the first reads every changed file's declarations
// (parse.go, decl.go: fileScope), the second parses again the
// files to resolve and resolves their declared types and calls against
// the repository's scopes (table.go, call.go, body.go,
// expr.go). All records have FileRecord.Language "java" and Module
// the file's package. A file that does not parse is parsed again with the
// type annotations before a varargs ellipsis blanked (String @Nullable
// ... args, which the grammar lacks; varargs.go), offsets unchanged.
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
// the repository does not declare them (jdk.txt, generated from javap
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
// candidates, when there are at most maxByName (8) of them; an
// overload the arguments do not single out (say, an argument of unknown
// type) makes every remaining overload a candidate. A call that evidently
// goes outside the repository gives none: a receiver of a type outside it
// or the result of a method outside it, an unqualified call in a file with
// a static on-demand import of a class outside it or in a class with a
// supertype outside it. Two files declaring the same class (two source
// sets): the first in path order has the plain ids and is the one names
// resolve to; the other's ids end in "@<path>" (file Attrs java.dup).
//
// Incremental runs: see the DESIGN note on indexer.Index. A file is
// re-resolved when its content changed, when a file its resolution read
// (java.deps) changed its declarations (java.surface) or was deleted,
// when files were added or deleted and one of its type names did not
// resolve (java.unres), and when the candidates of one of its by-name
// calls changed: the file node's java.byname lists their names and
// argument counts (see the DESIGN note in byname.go). A name that
// stays over the limit of 8 re-resolves nothing. FormatVersion (Meta
// "index.java.version"; java.FormatVersion) versions the Java
// records; a change re-indexes Java only.
//
// Java budgets (limits.go): member types are indexed 64 levels deep,
// statements and expressions walked 5,000 levels deep (some 2,500 nested
// calls); a file beyond them gets a diagnostic naming the line and keeps
// everything above it. The walks recurse, so these bounds are what keeps
// a crafted file from overflowing the stack, which Go cannot recover
// from; they also bound a file's qualified names to 64 times its size.
// What a file's resolution memoises is its own (lookup), so its
// java.deps do not depend on which goroutine resolved a type first.
// index/internal/javacheck measures the calls against javap's invoke
// instructions (BENCHMARKS.md).
//
// Java is a file of internal/repofs's language table with the extension
// .java in lower case, as javac reads it (lang.go: isSource). A relay
// built without cgo has no tree-sitter: Lang is registered unavailable
// (nocgo.go) and package index notes the Java files instead of indexing
// them, keeping their stored records.
package java
