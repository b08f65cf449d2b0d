//go:build !cgo

package sitter

// Unavailable says why a language parsed with tree-sitter is not indexed
// (frontend.Lang.Unavailable): there is no tree-sitter without cgo.
const Unavailable = "this relay was built without cgo (tree-sitter needs it); build it with CGO_ENABLED=1 and a C compiler to index them"
