package index

import (
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// JavaFormatVersion is the format of the Java records (language "java"),
// kept in Meta "index.java.version"; a change re-indexes Java only.
// java-3: java.deps lists every file a resolution read (before, only the
// first file to resolve a shared type's supertypes listed the files that
// took), and the nesting limits of javalimits.go.
const JavaFormatVersion = "java-3"

func javaIsSource(_, base string) bool {
	return strings.HasSuffix(base, ".java") && len(base) > len(".java")
}

// javaPkgOwner is the pseudo-owner of the package (module) nodes, which
// no one file owns; its Hash is the (empty) configuration fingerprint, so
// that an unchanged tree is no work.
const javaPkgOwner = "@java/packages"

// javaLang registers Java (java.go).
var javaLang = frontend.Lang{
	Name: "java", Title: "Java", Version: JavaFormatVersion, VersionKey: "index.java.version", Unit: "files",
	Files:  ".java files",
	Source: javaIsSource, Config: func(_, _ string) bool { return false },
	ConfigOwner: javaPkgOwner, Budgeted: true, New: newJavaFrontend, Unavailable: sitter.Unavailable,
}
