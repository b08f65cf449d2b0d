// Package frontend is the seam between relay's indexer (package index:
// the scan, the plan, the one transaction, Summary) and its language
// frontends. It owns what a frontend is given and returns — Frontend,
// Job, FileResult, Done, the optional Preparer — the language
// registration record (Lang: name, title, files, format version and its
// Meta key, source and configuration claims, configuration owner,
// constructor, why unavailable), ParseEach and ParseOne (a file at a time
// on the job's workers; a panic is the file's diagnostic), Diagnostic and
// Progress (package index re-exports them), the per-file budgets and the
// helpers that read and hash files safely.
//
// A language package registers one Lang; package index lists them in
// order (langs.go) and runs each the same way.
package frontend
