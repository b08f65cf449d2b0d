package rust

import (
	"path"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// layout names the crate and module of every Rust file from the paths
// alone, as Cargo lays a package out (the nearest Cargo.toml with a
// [package] above a file is its package): src/lib.rs is the library
// crate, named after the package with '-' as '_'; src/main.rs the binary
// (named "<pkg>-bin" when a library exists beside it); src/bin/x.rs and
// src/bin/x/main.rs binaries named x; tests/, examples/ and benches/
// hold one crate per file or directory ("<pkg>-tests-x"); build.rs is
// "<pkg>-build". Any other file is the module its path below its crate's
// directory names (src/a/b.rs and src/a/b/mod.rs: <pkg>::a::b). A file
// outside every package belongs to a package named after the directory
// above its nearest src/ folder, or "crate" at the root.
//
// DESIGN: names come from paths rather than from following `mod`
// declarations, so that a file's module does not depend on the contents
// of another file (an incremental run re-parses the files whose module
// name changed, as the Python frontend does); a `mod x;` declaration is
// linked to the file the paths give it (modFile), so that `#[path]` and
// test crates' shared modules (tests/common/mod.rs) still resolve. Two
// files naming the same module (a.rs beside a/mod.rs): the second in path
// order is named "<module>@<path>".
type layout struct {
	mods  map[string]fileMod // by file
	files map[string]string  // file by module
}

// fileMod is where one file stands.
type fileMod struct {
	Crate string // the crate's root module ("tokio", "tokio_tests_io")
	Path  string // the file's module path ("tokio::io::util")
	Root  bool   // the file is its crate's root
	Test  bool   // under tests/ or benches/
}

// manifest is the part of a Cargo.toml layout reads.
type manifest struct {
	Package struct {
		Name string `toml:"name"`
	} `toml:"package"`
	Lib struct {
		Name string `toml:"name"`
	} `toml:"lib"`
}

// crateName reads the library crate's name from a Cargo.toml ("" when it
// declares no package or does not parse: the directory names it then).
func crateName(data []byte) string {
	var m manifest
	if err := toml.Unmarshal(data, &m); err != nil {
		return ""
	}
	n := m.Lib.Name
	if n == "" {
		n = m.Package.Name
	}
	return strings.ReplaceAll(n, "-", "_")
}

// newLayout lays out files (repository-relative) under the packages of
// manifests (Cargo.toml path → crate name, "" for a workspace-only one).
func newLayout(files []string, manifests map[string]string) *layout {
	l := &layout{mods: map[string]fileMod{}, files: map[string]string{}}
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	sort.Strings(files)
	for _, f := range files {
		m := placeFile(f, manifests, have)
		if prev, ok := l.files[m.Path]; ok && prev != f {
			m.Path += "@" + f
			if m.Root {
				m.Crate = m.Path
			}
		}
		l.files[m.Path] = f
		l.mods[f] = m
	}
	return l
}

// placeFile names one file's crate and module.
func placeFile(f string, manifests map[string]string, have map[string]bool) fileMod {
	dir, pkg := packageOf(f, manifests)
	r := f
	if dir != "" {
		r = strings.TrimPrefix(f, dir+"/")
	}
	parts := strings.Split(strings.TrimSuffix(r, ".rs"), "/")
	m := fileMod{}
	join := func(crate string, mods []string) fileMod {
		m.Crate = crate
		if n := len(mods); n > 0 && mods[n-1] == "mod" {
			mods = mods[:n-1]
		}
		m.Root = len(mods) == 0
		m.Path = strings.Join(append([]string{crate}, mods...), "::")
		return m
	}
	switch {
	case r == "src/lib.rs":
		return join(pkg, nil)
	case r == "src/main.rs":
		if have[path.Join(dir, "src/lib.rs")] {
			return join(pkg+"-bin", nil)
		}
		return join(pkg, nil)
	case r == "build.rs":
		return join(pkg+"-build", nil)
	case len(parts) >= 3 && parts[0] == "src" && parts[1] == "bin":
		return rootedDir(join, parts[2], parts[3:])
	case parts[0] == "src" && len(parts) > 1:
		return join(pkg, parts[1:])
	case len(parts) >= 2 && (parts[0] == "tests" || parts[0] == "examples" || parts[0] == "benches"):
		m.Test = parts[0] != "examples"
		return rootedDir(join, pkg+"-"+parts[0]+"-"+parts[1], parts[2:])
	}
	return join(pkg, parts)
}

// rootedDir names a file of a crate that is one file or one directory
// (src/bin/x.rs, src/bin/x/main.rs, tests/x/mod.rs): its main.rs or
// mod.rs is the root.
func rootedDir(join func(string, []string) fileMod, crate string, rest []string) fileMod {
	if len(rest) == 1 && (rest[0] == "main" || rest[0] == "mod") {
		rest = nil
	}
	return join(crate, rest)
}

// packageOf returns the directory of the package holding f and the
// crate's name.
func packageOf(f string, manifests map[string]string) (dir, name string) {
	for d := path.Dir(f); ; d = path.Dir(d) {
		key := "Cargo.toml"
		if d != "." {
			key = d + "/Cargo.toml"
		}
		if n, ok := manifests[key]; ok && n != "" {
			if d == "." {
				d = ""
			}
			return d, n
		}
		if d == "." || d == "/" {
			break
		}
	}
	// no package: the directory above the nearest src/ names it
	if i := strings.LastIndex("/"+f, "/src/"); i >= 0 {
		d := strings.TrimSuffix(f[:i], "/")
		if d == "" {
			return "", "crate"
		}
		return d, strings.ReplaceAll(path.Base(d), "-", "_")
	}
	return "", "crate"
}

// modFile returns the module path of the file a `mod name;` declaration
// in file f loads (attr: its #[path] attribute, "" when none), or "" when
// no such file is indexed.
func (l *layout) modFile(f, name, attr string) string {
	dir := path.Dir(f)
	base := strings.TrimSuffix(path.Base(f), ".rs")
	if m := l.mods[f]; !m.Root && base != "mod" {
		dir = path.Join(dir, base)
	}
	var cands []string
	if attr != "" {
		cands = []string{path.Join(path.Dir(f), attr)}
	} else {
		cands = []string{path.Join(dir, name+".rs"), path.Join(dir, name, "mod.rs")}
	}
	for _, c := range cands {
		if m, ok := l.mods[c]; ok {
			return m.Path
		}
	}
	return ""
}
