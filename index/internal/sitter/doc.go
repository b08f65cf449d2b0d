// Package sitter holds what the tree-sitter frontends of package index
// share: parsing a file within the per-file budgets (budget.go of
// internal/frontend), the parent and sibling indexes that keep walks
// linear, syntax errors, doc comments and node helpers; it re-exports the
// go-tree-sitter names they use.
package sitter
