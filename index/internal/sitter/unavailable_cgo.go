//go:build cgo

package sitter

// Unavailable is empty: this build parses with tree-sitter.
const Unavailable = ""
