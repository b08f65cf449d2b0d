package frontend

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
