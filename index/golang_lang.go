package index

import "github.com/relayhq/relay/index/golang"

// goLang is Go (package index/golang).
var goLang = golang.Lang

// FormatVersion is the format of the Go records (language "go").
const FormatVersion = golang.FormatVersion

// Meta keys of Go's records.
const (
	MetaVersion = golang.MetaVersion // FormatVersion of the last run
	MetaConfig  = golang.MetaConfig  // hash of every go.mod and go.work: a change forces a full Go run
)

// RunGoShim must be called first in main by programs that run Run: see
// golang.RunGoShim.
func RunGoShim() { golang.RunGoShim() }
