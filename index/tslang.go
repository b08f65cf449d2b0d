package index

import "github.com/relayhq/relay/index/typescript"

// tsLang is TypeScript/JavaScript (package index/typescript).
var tsLang = typescript.Lang

// TSFormatVersion is the format of the TypeScript/JavaScript records
// (language "typescript").
const TSFormatVersion = typescript.FormatVersion
