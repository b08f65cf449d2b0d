package cinclude

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// Build files whose include directories Dirs reads (Config claims).
var buildFiles = map[string]bool{
	CompileDBName: true, "CMakeLists.txt": true, "meson.build": true,
	"Makefile": true, "GNUmakefile": true, "makefile": true, "Makefile.am": true, "Makefile.in": true,
}

// IsBuildFile reports whether base names a file Dirs reads.
func IsBuildFile(base string) bool { return buildFiles[base] }

// Source says where Dirs finds the include directories.
type Source string

const (
	FromCompileDB  Source = "compile_commands.json"
	FromBuildFiles Source = "build files"
	FromIncludes   Source = "include folders"
)

// Dirs returns the repository's include directories, repository-relative
// and sorted, and where they came from: the include flags of
// compile_commands.json files when there are any (root is the absolute
// repository root they name directories under), else the include
// directories the CMake, Meson and Makefile build files name, else every
// folder named include that holds a file of files. configs are the build
// files (repository-relative, as IsBuildFile claims them) and read reads
// one; a file that cannot be read is skipped.
//
// DESIGN: build files are read with regular expressions over their
// include directives (include_directories, target_include_directories,
// -I flags) rather than by running CMake, Meson or make, which need the
// project's dependencies and may run its code; no maintained Go library
// parses these languages. Variables are dropped from a path's front
// (${CMAKE_CURRENT_SOURCE_DIR}/include, $(srcdir)/src), so a path is taken
// relative to the build file's folder, and a directory outside the
// repository or that holds no file is left out.
func Dirs(root string, configs []string, read func(rel string) ([]byte, error), files []string) ([]string, Source) {
	dirsWithFiles := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); ; d = path.Dir(d) {
			dirsWithFiles[d] = true
			if d == "." || d == "/" {
				break
			}
		}
	}
	var fromDB, fromBuild []string
	for _, rel := range configs {
		data, err := read(rel)
		if err != nil {
			continue
		}
		dir := path.Dir(rel)
		if path.Base(rel) == CompileDBName {
			cmds, err := ParseCompileDB(data, path.Join(root, dir))
			if err != nil {
				continue
			}
			for _, c := range cmds {
				for _, d := range c.IncludeDirs() {
					if r, ok := strings.CutPrefix(d, strings.TrimSuffix(root, "/")+"/"); ok {
						fromDB = append(fromDB, r)
					} else if d == root {
						fromDB = append(fromDB, ".")
					}
				}
			}
			continue
		}
		for _, d := range buildDirs(path.Base(rel), string(data)) {
			fromBuild = append(fromBuild, path.Join(dir, d))
		}
	}
	keep := func(ds []string) []string {
		var out []string
		for _, d := range ds {
			d = path.Clean(d)
			if d != ".." && !strings.HasPrefix(d, "../") && dirsWithFiles[d] {
				out = append(out, d)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	if ds := keep(fromDB); len(ds) > 0 {
		return ds, FromCompileDB
	}
	if ds := keep(fromBuild); len(ds) > 0 {
		return ds, FromBuildFiles
	}
	var inc []string
	for d := range dirsWithFiles {
		if path.Base(d) == "include" {
			inc = append(inc, d)
		}
	}
	return keep(inc), FromIncludes
}

var (
	reCMake    = regexp.MustCompile(`(?is)\b(?:target_)?include_directories\s*\(([^)]*)\)`)
	reMeson    = regexp.MustCompile(`(?s)\binclude_directories\s*\(([^)]*)\)`)
	reMesonStr = regexp.MustCompile(`'([^']*)'`)
	reMakeI    = regexp.MustCompile(`(?:^|\s)-I\s*([^\s"']+)`)
	reVarFront = regexp.MustCompile(`^(?:\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_]+)/?`)
)

// buildDirs returns the include directories a build file names, relative
// to its folder.
func buildDirs(base, text string) []string {
	var raw []string
	switch base {
	case "CMakeLists.txt":
		for _, m := range reCMake.FindAllStringSubmatch(stripComments(text, "#"), -1) {
			for _, w := range strings.Fields(m[1]) {
				w = strings.Trim(w, `"`)
				switch strings.ToUpper(w) {
				case "PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER":
					continue
				}
				if strings.HasPrefix(w, "$<") {
					continue // generator expressions: $<BUILD_INTERFACE:…> and the like
				}
				raw = append(raw, w)
			}
		}
		// The first word of target_include_directories is the target.
		raw = dropTargets(text, raw)
	case "meson.build":
		for _, m := range reMeson.FindAllStringSubmatch(stripComments(text, "#"), -1) {
			for _, s := range reMesonStr.FindAllStringSubmatch(m[1], -1) {
				raw = append(raw, s[1])
			}
		}
	default: // Makefiles
		for _, m := range reMakeI.FindAllStringSubmatch(stripComments(text, "#"), -1) {
			raw = append(raw, m[1])
		}
	}
	var out []string
	for _, d := range raw {
		if strings.HasPrefix(d, "/") {
			continue // outside the repository
		}
		d = reVarFront.ReplaceAllString(d, "")
		if strings.Contains(d, "$") {
			continue // a variable inside the path: unknown
		}
		if d == "" {
			d = "."
		}
		out = append(out, d)
	}
	return out
}

// dropTargets removes the target names of target_include_directories
// calls from words.
func dropTargets(text string, words []string) []string {
	targets := map[string]bool{}
	re := regexp.MustCompile(`(?i)\btarget_include_directories\s*\(\s*([^\s)]+)`)
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		targets[m[1]] = true
	}
	return slices.DeleteFunc(words, func(w string) bool { return targets[w] })
}

// stripComments drops the rest of each line from marker on.
func stripComments(text, marker string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if j := strings.Index(l, marker); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}
