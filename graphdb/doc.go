// Package graphdb owns relay's code-graph model and the storage contract every
// backend honours.
//
// The model (ARCHITECTURE.md at the repository root, "The code graph") is a
// directed multigraph: nodes are modules, files, types, functions and
// members; edges are calls, implements, inherits, returns, param_of, parent,
// imports, decorated_by, references (a function used as a value, not called,
// at a site) and calls_by_name (a call a frontend could resolve only by the
// callee's name, kept apart from calls). Every node and edge is
// owned by exactly one source file (or one pseudo-owner such as "@go/implements"
// for facts computed across the whole repository); an index run replaces whole
// owners atomically, which is what makes incremental indexing and crash safety
// simple for every backend. Nodes declared outside the repository (Go
// interfaces the repository uses, [AttrExternal]) have no file: they exist
// so that implements and calls edges can point at them.
//
// Backends implement [Store] and must pass the conformance suite in
// graphdb/storetest. Graph operations ([Query], [ByName], [BlastRadius]) and target
// resolution ([Resolve]) are written once here, against [Reader], so the
// embedded store and ArangoDB answer them identically; a backend that can do a
// traversal faster natively implements [Traverser] (one start) and
// [MultiTraverser] (many starts, one breadth-first search: what BlastRadius
// runs) and is used automatically.
//
// graphdb imports nothing else of relay.
package graphdb
