// Package rust indexes Rust for package index: it registers Lang
// (frontend.Lang), whose frontend parses each .rs file with tree-sitter
// (tree-sitter-rust; cgo) and resolves paths, types and calls across the
// repository's crates.
//
// Crates and modules come from the paths and the Cargo manifests
// (layout.go): every Cargo.toml with a [package] is a package, so a
// workspace's members are found wherever they lie; its src/lib.rs is the
// library crate, named after the package ('-' as '_') so that other
// crates' `use name::…` resolve to it; src/main.rs, src/bin/*, tests/*,
// examples/* and benches/* are crates of their own; src/a/b.rs and
// src/a/b/mod.rs are the module name::a::b. A `mod x;` declaration
// refers to the file the paths give it (#[path] honoured), an inline
// `mod x { … }` is a module node of its file. All records have
// FileRecord.Language "rust" and Module the file's module path.
//
// Nodes (ids "rust:" + QName; QName the module path and the item joined
// by "::"): module (id "rust:mod:" + path, apart from an item of the same
// path; SubKind crate for a crate's root file, module for the other files
// and inline modules; file → module parent edges), types (SubKind struct,
// enum, union, alias, and interface for a trait, so that dispatch through
// traits works as through interfaces; Signature "pub trait T"), fields
// (member/field, QName Type.field, apart from a method of that name), free functions
// (function/function), methods and associated functions of impl blocks
// and traits (member/method; an inherent impl's are named
// <module>::Type::m, a trait impl's <module>::<Type as Trait>::m, with
// <module> the module of the impl block; Loc "path.rs:Type.m" for both),
// macro_rules! definitions (function/macro, named "m!"). Attributes are
// kept on the node (Attrs rust.attrs, one a line: derive(Debug, Clone),
// cfg(test), test…); #[derive(X)] of a trait or macro of the repository
// gives a decorated_by edge. Test: under a package's tests/ or benches/,
// in a #[cfg(test)] module, or a #[test] function. Doc: the first line
// of the /// comment. Syntax errors are recorded on the file record and
// reported, and the file is indexed as far as tree-sitter recovers.
//
// Resolution (table.go, types.go) follows rustc's name lookup where the
// source shows it: crate::, self::, super::, Self::, the items of a
// module, its use declarations (use trees, aliases, `pub use`
// re-exports followed through any number of modules), its globs
// (modules and enums), child modules, the workspace's library crates by
// name; a path through std, core, alloc or a crate outside the
// repository is external. Edges: parent (a method to the type its impl
// block's Self type resolves to, or to the file when it resolves
// outside the repository), implements (impl Trait for Type), inherits
// (a trait to its supertraits), imports (file → the module of each use
// that resolves in the repository), returns and param_of (declared types
// of the repository), references (a function to the macro_rules! its
// invocations name), calls (with the call site).
//
// Calls resolve through paths (f(), module::f(), Type::f(), Self::f(),
// <T as Trait>::f(), L::f() with L: Trait, Trait::m(x) — to x's
// implementation when x's type is evident) and through the type of a
// method call's receiver: self, parameters and locals of a declared type,
// a let's initializer (struct literals, calls whose return type is
// declared, Self as the receiver's type, x?, .unwrap() and .expect() on
// Option and Result, .clone(), a match's or block's value), fields,
// constants and statics; patterns bind what they destructure: Some(x) and
// Ok(x) of an Option or Result, a tuple variant's fields (Idle(buf) on a
// State), for over a Vec or slice; a closure passed to a resolved callee
// takes the parameter types of the closure type the callee declares
// (F: FnMut(Snapshot)). A generic parameter with a bound is its first
// bound (T: Shape, impl Shape, dyn Shape), so its calls go to the trait's
// method; one without is the receiver's type argument in its place
// (Mutex<Inner>::lock() gives a MutexGuard<Inner>). Box, Rc, Arc, Pin,
// Cow, NonNull and the repository's types that implement Deref are seen
// through. A method is looked up on the type: its inherent impls, then
// its trait impls, then the provided methods of the traits it implements,
// of their supertraits and of the traits implemented for them by blanket
// impls (impl<T: Named> Greeter for T). Calls inside macro arguments are
// found by parsing the arguments again (macroargs.go): always for the
// standard expression macros (println!, format!, assert_eq!, vec!,
// write!, log macros…), for any other macro when its arguments parse as
// expressions without an error. Items inside a macro invocation where
// items stand (tokio's cfg_rt! { … }) are read the same way
// (itemmacro.go); both branches of a cfg_x!/cfg_not_x! pair are indexed,
// and a path resolves to the first.
//
// Calls that do not resolve are not invented. A method call on a
// receiver whose type is not evident gets the repository's methods of
// that name taking self as calls_by_name candidates, and a bare call f()
// that names nothing in scope the free functions named f, when there are
// at most maxByName (8) of them; a call on a type outside the
// repository, through an external path, or a bare name in a module with
// a glob import from outside the repository gets none.
//
// Incremental runs: see the DESIGN note on indexer.Index. FormatVersion
// (Meta "index.rust.version") versions the Rust records; a change
// re-indexes Rust only. index/internal/rustcheck measures the calls
// against rustc's own resolution (BENCHMARKS.md).
//
// A relay built without cgo has no tree-sitter: Lang is registered
// unavailable (nocgo.go) and package index notes the Rust files instead
// of indexing them, keeping their stored records.
package rust
