// Package c indexes C for package index: it registers Lang
// (frontend.Lang), whose frontend parses each file with tree-sitter
// (tree-sitter-c; cgo) into facts and resolves includes, types and calls
// across the repository's files.
//
// Which files are C: every .c file, and every .h file of a repository
// without C++ sources. A header is ambiguous between C and C++; Lang
// claims .h (internal/repofs's table names it C) and yields it
// (frontend.Lang.Yields) to the language named "cpp" (index/cpp,
// registered after C) when that language has source files of its own in
// the repository (.cc, .cpp, .cxx, .hpp…): package index's scan then
// hands every .h to C++. A repository that gains its first C++ source
// moves its headers from C to C++ in that run (C deletes their records,
// C++ writes them). The C files of such a repository then see no
// header: their calls resolve by linkage alone (no macros, no static
// inline functions of headers).
//
// Nodes (ids "c:" + path + ":" + name): a file node per file; functions
// (Kind function, SubKind function; Exported unless static; Signature the
// text before the body); macros (Kind function, SubKind macro, id
// "c:path:#NAME", object-like and function-like); structs, unions, enums
// with a name and a body and typedefs (Kind type, SubKind struct, union,
// enum, typedef; ids "c:path:struct foo", "c:path:typedef foo_t"), their
// fields and enum constants (Kind member, SubKind field, enum_constant;
// a typedef of an anonymous struct holds its fields). Prototypes are no
// nodes: calls resolve to definitions. Test: under a test or tests
// folder, or named test_*.c, *_test.c, *_tests.c.
//
// Edges: parent (declaration → file, member → type), imports (file →
// included file of the repository), returns and param_of (the
// repository's struct, union, enum and typedef types visible through the
// includes), references (typedef → the type it names), calls with the
// call site, and calls_by_name for a call with several candidates.
//
// #include resolves as a compiler searches (index/internal/cinclude,
// shared with the C++ frontend): a quoted name relative to the including
// file, then the include directories — those of compile_commands.json
// when the repository has one, else those its CMake, Meson or Makefile
// build files name, else every folder named include — and, for a quoted
// name, the one repository file whose path ends in it. Angle-bracket
// names outside the repository (the C library) are left alone.
//
// Calls resolve as the preprocessor and the linker would:
//   - a name that is a parameter or a local is a call through a pointer,
//     not of a function of that name, and makes no edge;
//   - a static function of the file (static functions are scoped to
//     their file), then a macro of the file or of the headers it includes
//     (an edge to the macro, and the calls its body makes, resolved at the
//     call site: DEV_CHECK(d) calls dev_valid), then a static inline
//     function of those headers;
//   - else the repository's function of that name with external linkage:
//     the one there is; among several (programs that each define main or
//     usage), the one a visible file defines, else the one in the caller's
//     folder, else all of them as calls_by_name candidates (at most 8);
//   - a call through a struct field, p->read(…) or s.read(…), calls the
//     functions the repository's initializers assign to that field of
//     the receiver's struct (`.read = foo_read`, or by position, `{"null",
//     null_reset}`, the field taken from the struct's definition), when the
//     receiver is a parameter, a local or a file-scope variable of a
//     declared struct or typedef type; when it is not evident, the
//     assignments to that field of any struct, as calls when one struct
//     type has them and as calls_by_name candidates otherwise.
//
// A call with no candidate in the repository (the C library's) makes no
// edge. A file that does not parse is indexed as far as tree-sitter
// recovers, and its syntax errors are reported (Summary.Errors) and
// recorded on its file record.
//
// Incremental runs: see the DESIGN note on indexer.Index. Each file node
// stores its facts (c.facts), the fingerprint of what including files
// read of it (c.surface), the files its includes reach (c.deps) and the
// repository-wide names its resolution looked up (c.refs); a change to
// the build files resolves every file again (the pseudo-owner @c/build
// fingerprints them). FormatVersion (Meta "index.c.version") versions
// the C records.
//
// index/internal/clangcheck measures the calls against clang's
// resolution (BENCHMARKS.md). A relay built without cgo has no
// tree-sitter: Lang is registered unavailable (nocgo.go).
package c
