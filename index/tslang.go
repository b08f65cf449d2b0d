package index

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
)

// TSFormatVersion is the format of the TypeScript/JavaScript records
// (language "typescript"), kept in Meta "index.typescript.version"; a
// change re-indexes TypeScript/JavaScript only.
const TSFormatVersion = "ts-3"

// tsSourceExts are the extensions the TypeScript/JavaScript frontend
// reads. Declaration files (.d.ts) are read for types but not indexed.
var tsSourceExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

func tsIsSource(_, base string) bool {
	for _, e := range tsSourceExts {
		if strings.HasSuffix(base, e) && len(base) > len(e) {
			return !strings.HasSuffix(base, ".min.js")
		}
	}
	return false
}

// tsIsDecl reports whether rel is a declaration file (.d.ts, .d.mts, .d.cts).
func tsIsDecl(rel string) bool {
	b := path.Base(rel)
	return strings.HasSuffix(b, ".d.ts") || strings.HasSuffix(b, ".d.mts") || strings.HasSuffix(b, ".d.cts")
}

// tsIsConfig reports whether a file configures module resolution:
// tsconfig*.json, jsconfig.json and package.json.
func tsIsConfig(_, base string) bool {
	return base == "package.json" || base == "jsconfig.json" || strings.HasPrefix(base, "tsconfig") && strings.HasSuffix(base, ".json")
}

// tsConfigOwner is the pseudo-owner whose Hash fingerprints the
// configuration files (tsconfig.json, jsconfig.json, package.json): a
// change re-resolves every file.
const tsConfigOwner = "@ts/config"

// tsLang registers TypeScript/JavaScript (ts.go).
var tsLang = frontend.Lang{
	Name: "typescript", Title: "TypeScript/JavaScript", Version: TSFormatVersion,
	VersionKey: "index.typescript.version", Unit: "files",
	Files:  ".ts, .tsx, .mts, .cts, .js, .jsx, .mjs or .cjs files",
	Source: tsIsSource, Config: tsIsConfig, ConfigOwner: tsConfigOwner, Budgeted: true,
	New: newTSFrontend, Unavailable: sitterUnavailable,
}
