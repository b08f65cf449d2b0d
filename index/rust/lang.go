package rust

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the Rust records (language "rust"),
// kept in Meta "index.rust.version"; a change re-indexes Rust only.
// rust-2: module ids "rust:mod:<path>" and field ids "rust:<Type>.<field>",
// apart from the items and methods of the same paths. rust-3: the calls
// in the arguments of any macro that parse as expressions.
const FormatVersion = "rust-3"

// isSource reports whether rel is a Rust source file: Rust in
// internal/repofs's language table, with a name before ".rs".
func isSource(rel, base string) bool {
	l, _ := repofs.Language(rel)
	return l == "rust" && strings.HasSuffix(base, ".rs") && len(base) > len(".rs")
}

// isConfig reports whether rel is a Cargo manifest: it names the crate
// whose sources lie beneath it (layout.go).
func isConfig(_, base string) bool { return base == "Cargo.toml" }

// crateOwner is the pseudo-owner whose Hash fingerprints the Cargo
// manifests (frontend.Job.ConfigHash): a change to them renames crates
// and modules, so it runs Rust in full.
const crateOwner = "@rust/crates"

// Lang registers Rust (frontend.go).
var Lang = frontend.Lang{
	Name: "rust", Title: "Rust", Version: FormatVersion, VersionKey: "index.rust.version", Unit: "files",
	Files:  ".rs files",
	Source: isSource, Config: isConfig,
	ConfigOwner: crateOwner, Budgeted: true, New: newFrontend, Unavailable: sitter.Unavailable,
}
