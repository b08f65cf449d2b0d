package java

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"
)

// FormatVersion is the format of the Java records (language "java"),
// kept in Meta "index.java.version"; a change re-indexes Java only.
// java-3: java.deps lists every file a resolution read (before, only the
// first file to resolve a shared type's supertypes listed the files that
// took), and the nesting limits of limits.go. java-4: a type annotation
// before a varargs ellipsis (String @Nullable ... args) parses
// (varargs.go), and an annotated array level (String @A []) erases to
// its type.
const FormatVersion = "java-4"

// isSource reports whether rel is a Java source file: Java in
// internal/repofs's language table, with the extension in lower case, as
// javac requires, and a name before it.
func isSource(rel, base string) bool {
	l, _ := repofs.Language(rel)
	return l == "java" && strings.HasSuffix(base, ".java") && len(base) > len(".java")
}

// pkgOwner is the pseudo-owner of the package (module) nodes, which
// no one file owns; its Hash is the (empty) configuration fingerprint, so
// that an unchanged tree is no work.
const pkgOwner = "@java/packages"

// Lang registers Java (frontend.go).
var Lang = frontend.Lang{
	Name: "java", Title: "Java", Version: FormatVersion, VersionKey: "index.java.version", Unit: "files",
	Files:  ".java files",
	Source: isSource, Config: func(_, _ string) bool { return false },
	ConfigOwner: pkgOwner, Budgeted: true, New: newFrontend, Unavailable: sitter.Unavailable,
}
