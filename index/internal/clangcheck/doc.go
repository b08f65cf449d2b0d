// Package clangcheck is the external truth for relay's C and C++ call
// edges: clang's own resolution of every call, compared with a relay
// graph. It is language-neutral: the C and the C++ frontends' checks use
// it unchanged.
//
// The truth: Run runs clang (Debian's clang package) with
// `-fsyntax-only -Xclang -ast-dump=json` on every translation unit of a
// compilation database (cinclude.LoadCompileDB reads a
// compile_commands.json, as CMake writes it with
// -DCMAKE_EXPORT_COMPILE_COMMANDS=ON or `bear -- make` records it; the
// compiler's -c, -o and dependency-file flags are dropped) and resolves
// every call to the declaration clang bound it to:
//
//   - CallExpr (by name), CXXMemberCallExpr and CXXOperatorCallExpr (their
//     callee expression's declaration: a DeclRefExpr's referencedDecl, a
//     MemberExpr's referencedMemberDecl), UserDefinedLiteral;
//   - CXXConstructExpr and CXXTemporaryObjectExpr: the JSON dump names no
//     declaration there, so the constructor is the one of the constructed
//     class (the type's last name) with the expression's ctorType;
//   - calls whose callee is a variable, a parameter or a struct field (a
//     function pointer, a lambda) name no function: they are Truth.Indirect
//     sites.
//
// Each call gives an Edge from its caller, the enclosing function
// definition (calls in a lambda belong to the function around it), to
// its callee: the callee's definition when the unit defines it (a static
// function always is defined in its own unit), else the one definition
// in the repository of that mangled name from any unit, else its first
// declaration in the repository. Edges whose caller or callee lies
// outside Options.Root (the C library, the STL) are dropped. Functions
// are (file, line of the name, first line of the declaration, name),
// with repository-relative files and lines computed from clang's byte
// offsets (bison's #line directives do not move them).
//
// The comparison: LoadRelay reads a relay graph's callables and calls
// edges for some languages from a graphdb.Scanner (the embedded store),
// and Compare scores them on a sample of Truth.Defs: per caller, the set
// of clang's callees against relay's, precision and recall over those
// sets (Score, with the differing pairs in Result).
//
// A translation unit clang cannot dump is reported in Truth.Errors and
// the others go on; clang's recovery from errors (a missing generated
// header) still yields the calls it resolved.
package clangcheck
