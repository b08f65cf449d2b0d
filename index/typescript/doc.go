// Package typescript indexes TypeScript and JavaScript for package index:
// it registers Lang (frontend.Lang), whose frontend parses each file with
// tree-sitter and resolves names across the repository's files.
//
// TypeScript and JavaScript (.ts .tsx .mts .cts .js .jsx .mjs .cjs; not
// .min.js) are parsed with tree-sitter (the TypeScript, TSX and
// JavaScript grammars; cgo), a file at a time, then names are resolved
// across the repository's files (frontend.go, parse.go, decl.go, class.go,
// module.go, namespace.go, jsdoc.go, scope.go, resolve.go, config.go).
// node_modules and directories starting with "." are skipped, and so are the files the repository's .gitignore files ignore
// (as for Python; internal/repofs). Declaration files (.d.ts)
// are read for the types they declare (return types, members) and get a
// FileRecord but no nodes. All files belong to FileRecord.Language
// "typescript"; nodes carry Language "typescript" or "javascript" by
// extension (internal/repofs's language table). The TypeScript grammar
// (tree-sitter-typescript v0.23.2, the newest release) lacks variance annotations on type parameters (in, out;
// TS 4.7) and accessor after another modifier (static accessor x; TS
// 5.0): a TypeScript file that does not parse is parsed again with those
// modifiers blanked to spaces (offsets unchanged; tsvariance.go), so they
// report no syntax errors. It also lacks the bodiless anonymous default
// function tsc writes into declaration files (export default function
// (): T;): a declaration file is parsed again with it rewritten to a
// function named default of the same length, the name an anonymous
// default function of a source file gets.
//
// Module names are paths without the extension (src/util/str.ts →
// src/util/str). Files with the same stem share it by extension rank:
// .ts, .tsx, .mts, .cts, then .js, .jsx, .mjs, .cjs, then .d.ts, .d.mts,
// .d.cts; the first keeps the name and the others are named by their
// full path (a.ts → a and a.js → a.js; types.js → types and types.cjs →
// types.cjs, whatever the order of the paths). Nodes: module (id ts:pkg:<module>, owned by
// its file, Attrs ts.scope, ts.surface, ts.deps, ts.unres), file, class,
// interface, enum, type alias (Kind type, SubKind class, interface, enum,
// alias; id ts:<module>.<Name>), function (top-level functions and
// functions or arrow functions bound to top-level names, CommonJS
// exports.f = function, module.exports = { f() {} }; SubKind "arrow" for
// arrows; the function-valued properties of an object literal bound to a
// top-level name, SubKind "method", Loc "path/file.ts:api.f"), namespace
// (Kind module, SubKind "namespace", Loc "path/file.ts:A.B"; what it
// declares has it as parent and its path in qname and Loc), functions
// assigned at top level (assign.go): X.prototype.m = f and X.prototype = {
// m() {} } give a member of X (a constructor function or class; SubKind
// "method", parent X), X.m = f, a.b = a.c = f and the getter or value
// function of Object.defineProperty(X, "m", …) a function of X (SubKind
// "method", Loc "path/file.js:X.m"), X being a top-level function, class,
// object literal or a variable of no known type (var res =
// Object.create(…)); var x = module.exports = f binds x and exports it;
// member (methods, constructors as "constructor", fields,
// constructor parameter properties, interface method and property
// signatures; a field bound to a function is a method). Loc is
// "path/file.ts:Class.method". Overload signatures are not nodes: the
// implementation is, with the first signature's return type when it has
// none. Exported: exported by an export statement, list, default or
// CommonJS export (members: not private or #private). Test: *.test.*,
// *.spec.*, or under __tests__, test or tests. Syntax errors are recorded
// as for Python and the file is indexed as far as tree-sitter recovers.
//
// Imports resolve like the compiler's: relative paths with extensions
// and index files tried (a ".js" written for a ".ts"), the nearest
// tsconfig.json/jsconfig.json's baseUrl and paths (extends followed to
// repository files; comments and trailing commas allowed), workspace
// packages by package.json name (exports, then source, types, typings,
// module, main; build output such as dist/ falls back to src/), re-exports
// (export * from, export { a as b } from, export * as ns from), CommonJS
// require (whole, destructured, .member) and module.exports/exports.x.
// Bare specifiers of packages outside the repository resolve to nothing.
//
// Edges: parent, imports (file → module of each resolved specifier),
// inherits (class → base class, interface → extended interfaces),
// implements (class → interface), decorated_by (@f, @f(args) → f),
// returns and param_of (declared types naming a repository class,
// interface, enum or alias; generics, null/undefined unions and
// parentheses dropped), calls (with the call site; calls in nested
// functions and callbacks belong to the enclosing top-level declaration;
// top-level code's calls to the module node, field initialisers' to the
// field). Calls resolve statically: names through imports and re-exports,
// in a namespace's body through the namespace, then the enclosing scopes;
// N.f and A.B.f through namespaces; exports.f() and module.exports.f() to
// the module's own export f; api.f() and this.f() (in api's
// methods) to an object literal's properties;
// this.m() and super.m() through the class and its bases (depth-first);
// super() and new C() to the constructor (inherited included), else the
// class; a function with assigned members is a class (new X() types a
// value; this.m() and var self = this; self.m() in its body and in its
// assigned methods resolve through its members); receivers whose class is known from a declared type (variable
// annotation, parameter, field, function or method return type), from
// new C(), from an `as C` assertion, from f() with a declared return
// type, from fields destructured from this, from what a class's methods
// assign to this.x (new C(), a typed parameter; a literal is no class),
// from JSDoc in JavaScript files (@param, @returns, @type, import('./m').T,
// @typedef and @import: tsjsdoc.go), from an enclosing `x instanceof C`
// test (if and ternary branches, right of &&), and callback parameters typed
// by the callee's declared function-typed parameter (new Observable((s)
// => s.next()) uses the constructor's parameter type); JSX elements
// <Comp/> and <Ns.Comp/> (capitalised or dotted) as calls of the
// component. Calls whose target is unknown (a value of inferred type, a
// library) are not recorded as calls. A member call on a repository value
// whose class is unknown (an untyped parameter or variable, the result of
// a repository function without a return type, an undeclared property of
// this) records calls_by_name edges instead, to every method or
// object-literal method of that name in the repository, when there are
// at most 8 (maxByName; a commoner name gives none). Calls on globals
// (console.log), on library values and on values of a known class that
// lacks the member get none. The module node's ts.byname lists the
// names, so that a file is re-linked when the candidates of such a name
// change (a method added, renamed or removed elsewhere, the count crossing
// the limit), and only then (byNameChanged).
//
// Incremental runs: see the DESIGN note on indexer.Index.
// FormatVersion (Meta "index.typescript.version") versions these
// records; a change re-indexes TypeScript/JavaScript only. The pseudo-
// owner @ts/config fingerprints the configuration files. index/internal/
// tscheck measures the calls against the TypeScript compiler's call
// hierarchy (BENCHMARKS.md).
package typescript
