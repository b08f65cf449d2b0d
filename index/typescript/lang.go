package typescript

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the TypeScript/JavaScript records
// (language "typescript"), kept in Meta "index.typescript.version"; a
// change re-indexes TypeScript/JavaScript only.
const FormatVersion = "ts-4" // 4: functions assigned to prototypes and properties (assign.go)

// isSource reports whether a file is TypeScript/JavaScript source:
// internal/repofs's language table names it "typescript" (.ts, .tsx,
// .mts, .cts) or "javascript" (.js, .jsx, .mjs, .cjs), the table the
// search index uses too. The frontend refines it: the extension is
// written in lower case (tsc and Node.js compare extensions as written),
// a name that is only an extension (".ts") is no module, and a minified
// bundle (.min.js) is not read. Declaration files (.d.ts) are read for
// types but not indexed.
func isSource(rel, base string) bool {
	switch lang, _ := repofs.Language(rel); lang {
	case "typescript", "javascript":
	default:
		return false
	}
	ext := path.Ext(base)
	return len(base) > len(ext) && ext == strings.ToLower(ext) && !strings.HasSuffix(base, ".min.js")
}

// isDecl reports whether rel is a declaration file (.d.ts, .d.mts, .d.cts).
func isDecl(rel string) bool {
	b := path.Base(rel)
	return strings.HasSuffix(b, ".d.ts") || strings.HasSuffix(b, ".d.mts") || strings.HasSuffix(b, ".d.cts")
}

// isConfig reports whether a file configures module resolution:
// tsconfig*.json, jsconfig.json and package.json.
func isConfig(_, base string) bool {
	return base == "package.json" || base == "jsconfig.json" || strings.HasPrefix(base, "tsconfig") && strings.HasSuffix(base, ".json")
}

// configOwner is the pseudo-owner whose Hash fingerprints the
// configuration files (tsconfig.json, jsconfig.json, package.json): a
// change re-resolves every file.
const configOwner = "@ts/config"

// Lang registers TypeScript/JavaScript (frontend.go).
var Lang = frontend.Lang{
	Name: "typescript", Title: "TypeScript/JavaScript", Version: FormatVersion,
	VersionKey: "index.typescript.version", Unit: "files",
	Files:  ".ts, .tsx, .mts, .cts, .js, .jsx, .mjs or .cjs files",
	Source: isSource, Config: isConfig, ConfigOwner: configOwner, Budgeted: true,
	New: newFrontend, Unavailable: sitter.Unavailable,
}
