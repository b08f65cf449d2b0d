//go:build cgo

package index

// sitterUnavailable is empty: this build parses with tree-sitter (cgo).
const sitterUnavailable = ""
