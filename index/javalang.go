package index

import "strings"

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
var javaLang = fileLang{
	name: "java", title: "Java", version: JavaFormatVersion, versionKey: "index.java.version", unit: "files",
	files:  ".java files",
	source: javaIsSource, config: func(_, _ string) bool { return false },
	configOwner: javaPkgOwner, budgeted: true, newFrontend: newJavaFrontend, unavailable: sitterUnavailable,
}
