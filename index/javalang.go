package index

import (
	"log/slog"
	"strings"
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

// registerJava registers the Java language; newFE is nil when this build
// cannot index it (why says so).
func registerJava(newFE func(*slog.Logger) frontend, why string) {
	fileLangs = append(fileLangs, fileLang{
		name: "java", title: "Java", version: JavaFormatVersion, files: ".java files",
		source: javaIsSource, config: func(_, _ string) bool { return false },
		configOwner: javaPkgOwner, newFrontend: newFE, unavailable: why,
	})
}
