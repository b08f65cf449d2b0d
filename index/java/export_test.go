//go:build cgo

package java

// The limits and helpers the external tests (package java_test, which
// index through package index) read.
var (
	MaxByName      = maxByName
	MaxTypeNesting = maxTypeNesting
	MaxCodeDepth   = maxCodeDepth
	TypeTooDeep    = typeTooDeep
	CodeTooDeep    = codeTooDeep
	CorpusFile     = corpusFile
	HangGuard      = hangGuard
	NeedJDK        = needJDK
	TypeArgs       = typeArgs
)
