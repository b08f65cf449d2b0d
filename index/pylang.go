package index

import "github.com/relayhq/relay/index/python"

// pyLang is Python (package index/python).
var pyLang = python.Lang

// PyFormatVersion is the format of the Python records (language
// "python"); they are versioned apart from Go's.
const PyFormatVersion = python.FormatVersion

// MetaPyVersion holds PyFormatVersion of the last run; a change forces a
// full Python run (the other languages are untouched).
const MetaPyVersion = python.MetaVersion
