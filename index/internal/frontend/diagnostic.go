package frontend

import (
	"time"

	"github.com/relayhq/relay/graphdb"
)

// Progress reports how far a run got.
type Progress struct {
	// Phase is one of "scan" (files found), "list" (go list running),
	// "check" (Done of Total packages type-checked and extracted),
	// "files" (Done of Total files indexed from syntax alone),
	// "implements" and "commit".
	Phase string
	Done  int
	Total int
	Item  string // the package or file just finished
}

// Diagnostic is one problem found while indexing. Indexing goes on.
type Diagnostic struct {
	Package string // import path, "" for files outside packages
	Pos     string // "path/file.go:line:col", "path/file.go" or ""
	Msg     string
	// Limit is the Options field of the per-file budget that kept the
	// file from being indexed ("MaxFileBytes", "MaxDepth",
	// "ParseTimeout"), which Msg names as "Options.<Limit>"; "" for other
	// diagnostics. A caller with its own name for the setting (a CLI
	// flag, a configuration key) substitutes it.
	Limit string
}

func (d Diagnostic) String() string {
	s := d.Msg
	if d.Pos != "" {
		s = d.Pos + ": " + s
	}
	if d.Package != "" {
		s = d.Package + ": " + s
	}
	return s
}

// Summary tells what a run did.
type Summary struct {
	Files     int  // files of every language in the index after the run (on an unchanged run too)
	Changed   int  // files (re)written: added or modified, plus their package mates
	Deleted   int  // files removed from the index
	Unchanged bool // nothing changed on disk: no loading, no write
	Stats     graphdb.Stats
	// Errors lists list, parse and type errors, the files a budget left
	// unextracted (a parse past ParseTimeout, nesting deeper than
	// index.Options.MaxDepth) and failures inside one file's extraction; sorted.
	Errors []Diagnostic
	// Notes lists the files and directories that were not indexed and
	// why, by repository-relative path: files that are not regular (FIFOs,
	// devices), symbolic links leading outside the repository, symbolic
	// link loops, paths too long to open, unreadable or vanished files, and
	// files over index.Options.MaxFileBytes or minified (not parsed);
	// sorted.
	Notes    []Diagnostic
	Duration time.Duration
	// Phases times the run: scan, list, parse+typecheck and extract (summed
	// over workers), loose, implements, write (time inside the store) and
	// commit.
	Phases map[string]time.Duration

	// Languages reports each indexed language present in the repository,
	// by title ("Go", "Python", "TypeScript/JavaScript", "Java").
	Languages map[string]LanguageSummary
}

// LanguageSummary is one language's part of a run.
type LanguageSummary struct {
	Files int    // its files on disk (also counted in Summary.Files)
	Units int    // the units (re)extracted in this run
	Unit  string // what Units counts: "packages" (Go), "modules" (Python), "files"
	// SyntaxOnly counts the files indexed from syntax alone, without
	// types: Go files (testdata aside) outside every module, with no
	// go.mod above them, have declarations but no calls, types or
	// implementations.
	SyntaxOnly int
}
