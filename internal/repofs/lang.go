package repofs

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// languages maps file extensions to a language name; "" marks an
// extension that is known but not indexed. The indexer's languages claim
// their files from this table (a test in package index checks that they
// claim no file it names otherwise): TypeScript's ES-module and CommonJS
// variants (.mts, .cts) are "typescript", JavaScript keeps its own name,
// which the search index stores and filters on.
var languages = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescript",
	".mts": "typescript", ".cts": "typescript",
	".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".java": "java", ".kt": "kotlin", ".rs": "rust", ".rb": "ruby", ".php": "php", ".cs": "csharp",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".swift": "swift", ".scala": "scala",
	".cxx": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".s": "asm",
	".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".txt": "text",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
	".conf": "config", ".env": "config", ".properties": "config", ".xml": "xml", ".html": "html",
	".css": "css", ".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".tf": "terraform",
	".mod": "gomod", ".sum": "", ".lock": "", ".tmpl": "template", ".gotmpl": "template",
	".txtar": "txtar",
}

// baseLanguages maps whole base names to a language name, before the
// extension is looked at.
var baseLanguages = map[string]string{
	"Makefile": "make", "Dockerfile": "docker", "Taskfile.yml": "yaml", "go.mod": "gomod",
	".gitignore": "config", "Jenkinsfile": "groovy",
}

// Language returns the language of the slash-separated path rel and
// whether files of that language are read (searched, indexed).
func Language(rel string) (string, bool) {
	base := path.Base(rel)
	if l, ok := baseLanguages[base]; ok {
		return l, l != ""
	}
	l, ok := languages[strings.ToLower(path.Ext(base))]
	return l, ok && l != ""
}

// Languages returns the language names Language gives, sorted.
func Languages() []string {
	set := map[string]bool{}
	for _, l := range languages {
		set[l] = true
	}
	for _, l := range baseLanguages {
		set[l] = true
	}
	delete(set, "")
	return slices.Sorted(maps.Keys(set))
}
