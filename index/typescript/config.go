//go:build cgo

package typescript

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// resolver maps module specifiers to repository files the way the
// TypeScript compiler does for the cases a repository holds: relative
// paths (extensions and index files tried, ".js" written for a ".ts"
// file), tsconfig.json/jsconfig.json baseUrl and paths (with extends), and
// the workspace packages' package.json name, main/types/exports (falling
// back from build output such as dist/ to src/ when the output is not
// checked in). Bare specifiers of packages outside the repository resolve
// to nothing.
type resolver struct {
	files   map[string]bool // every source and declaration file
	configs map[string]*projectConfig
	pkgs    map[string]*packageJSON // by package name
	pkgDir  map[string]*packageJSON // by directory
	cache   map[[2]string]string
}

// projectConfig is the module resolution part of one tsconfig.json.
type projectConfig struct {
	baseURL  string // repository-relative directory; "" when unset
	pathsDir string // the directory paths are relative to
	paths    map[string][]string
}

type packageJSON struct {
	name, dir string
	raw       map[string]any
}

var resolveExts = []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// newResolver reads the configuration files (read returns a file's
// bytes; errors leave the file out).
func newResolver(files map[string]bool, configs []string, read func(string) ([]byte, error)) *resolver {
	r := &resolver{files: files, configs: map[string]*projectConfig{}, pkgs: map[string]*packageJSON{}, pkgDir: map[string]*packageJSON{}, cache: map[[2]string]string{}}
	for _, rel := range configs {
		base := path.Base(rel)
		if base == "package.json" {
			var raw map[string]any
			if data, err := read(rel); err == nil && json.Unmarshal(stripJSONC(data), &raw) == nil {
				p := &packageJSON{dir: path.Dir(rel), raw: raw}
				p.name, _ = raw["name"].(string)
				r.pkgDir[p.dir] = p
				if p.name != "" {
					if _, dup := r.pkgs[p.name]; !dup {
						r.pkgs[p.name] = p
					}
				}
			}
			continue
		}
		if base != "tsconfig.json" && base != "jsconfig.json" {
			continue
		}
		if _, ok := r.configs[path.Dir(rel)]; ok && base == "jsconfig.json" {
			continue
		}
		r.configs[path.Dir(rel)] = readConfig(rel, read, 0)
	}
	return r
}

// readConfig reads compilerOptions baseUrl and paths of one config,
// following extends to repository files (a config's own settings win).
func readConfig(rel string, read func(string) ([]byte, error), depth int) *projectConfig {
	c := &projectConfig{}
	data, err := read(rel)
	if err != nil || depth > 8 {
		return c
	}
	var raw struct {
		Extends         any `json:"extends"`
		CompilerOptions struct {
			BaseURL *string             `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if json.Unmarshal(stripJSONC(data), &raw) != nil {
		return c
	}
	var exts []string
	switch e := raw.Extends.(type) {
	case string:
		exts = []string{e}
	case []any:
		for _, v := range e {
			if s, ok := v.(string); ok {
				exts = append(exts, s)
			}
		}
	}
	dir := path.Dir(rel)
	for _, e := range exts {
		if !strings.HasPrefix(e, ".") {
			continue // a package's config: outside the repository
		}
		p := path.Join(dir, e)
		if !strings.HasSuffix(p, ".json") {
			p += ".json"
		}
		parent := readConfig(p, read, depth+1)
		if parent.baseURL != "" {
			c.baseURL = parent.baseURL
		}
		if parent.paths != nil {
			c.paths, c.pathsDir = parent.paths, parent.pathsDir
		}
	}
	if b := raw.CompilerOptions.BaseURL; b != nil {
		c.baseURL = path.Join(dir, *b)
	}
	if raw.CompilerOptions.Paths != nil {
		c.paths, c.pathsDir = raw.CompilerOptions.Paths, dir
	}
	if c.paths != nil && c.baseURL != "" && raw.CompilerOptions.Paths == nil {
		c.pathsDir = c.baseURL
	} else if raw.CompilerOptions.Paths != nil && raw.CompilerOptions.BaseURL != nil {
		c.pathsDir = c.baseURL
	}
	return c
}

// stripJSONC removes comments and trailing commas (tsconfig.json allows
// both).
func stripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			i += 2
			for i+1 < len(data) && (data[i] != '*' || data[i+1] != '/') {
				i++
			}
			i++
		case c == '}' || c == ']':
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\n' || out[j] == '\t' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// resolve returns the repository file a specifier used in from names, ""
// when none.
func (r *resolver) resolve(from, spec string) string {
	if spec == "" {
		return ""
	}
	dir := path.Dir(from)
	key := [2]string{dir, spec}
	if v, ok := r.cache[key]; ok {
		return v
	}
	v := r.resolveUncached(dir, spec)
	r.cache[key] = v
	return v
}

func (r *resolver) resolveUncached(dir, spec string) string {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		p := path.Join(dir, spec)
		if strings.HasPrefix(p, "../") || p == ".." {
			return ""
		}
		return r.file(p, 0)
	}
	if strings.HasPrefix(spec, "/") {
		return ""
	}
	if c := r.configFor(dir); c != nil {
		if f := r.viaPaths(c, spec); f != "" {
			return f
		}
		if c.baseURL != "" {
			if f := r.file(path.Join(c.baseURL, spec), 0); f != "" {
				return f
			}
		}
	}
	return r.viaPackage(spec)
}

// configFor returns the nearest tsconfig.json/jsconfig.json at or above dir.
func (r *resolver) configFor(dir string) *projectConfig {
	for d := dir; ; d = path.Dir(d) {
		if c := r.configs[d]; c != nil {
			return c
		}
		if d == "." || d == "/" || d == "" {
			return nil
		}
	}
}

// viaPaths applies compilerOptions.paths: the longest matching prefix
// pattern wins, its targets tried in order.
func (r *resolver) viaPaths(c *projectConfig, spec string) string {
	best, star := "", ""
	for pat := range c.paths {
		pre, suf, hasStar := strings.Cut(pat, "*")
		switch {
		case !hasStar && pat == spec:
			return r.pathTargets(c, c.paths[pat], "")
		case hasStar && strings.HasPrefix(spec, pre) && strings.HasSuffix(spec, suf) && len(spec) >= len(pre)+len(suf) && len(pre) > len(best):
			best, star = pat, spec[len(pre):len(spec)-len(suf)]
		}
	}
	if best == "" {
		return ""
	}
	return r.pathTargets(c, c.paths[best], star)
}

func (r *resolver) pathTargets(c *projectConfig, targets []string, star string) string {
	for _, t := range targets {
		if f := r.file(path.Join(c.pathsDir, strings.Replace(t, "*", star, 1)), 0); f != "" {
			return f
		}
	}
	return ""
}

// viaPackage resolves "name" and "name/sub" against workspace packages.
func (r *resolver) viaPackage(spec string) string {
	parts := strings.Split(spec, "/")
	n := 1
	if strings.HasPrefix(spec, "@") {
		n = 2
	}
	if len(parts) < n {
		return ""
	}
	p := r.pkgs[strings.Join(parts[:n], "/")]
	if p == nil {
		return ""
	}
	sub := strings.Join(parts[n:], "/")
	return r.pkgEntry(p, sub)
}

// pkgEntry resolves a package subpath ("" for the package itself) through
// exports, then main/types/module (for the root), then the directory.
func (r *resolver) pkgEntry(p *packageJSON, sub string) string {
	key := "."
	if sub != "" {
		key = "./" + sub
	}
	var cands []string
	switch ex := p.raw["exports"].(type) {
	case string:
		if sub == "" {
			cands = append(cands, ex)
		}
	case map[string]any:
		if v, ok := ex[key]; ok {
			cands = append(cands, exportTargets(v)...)
		} else if !strings.HasPrefix(firstKey(ex), ".") && sub == "" {
			cands = append(cands, exportTargets(ex)...) // conditions only
		} else {
			for k, v := range ex {
				if pre, suf, ok := strings.Cut(k, "*"); ok && strings.HasPrefix(key, pre) && strings.HasSuffix(key, suf) {
					star := key[len(pre) : len(key)-len(suf)]
					for _, t := range exportTargets(v) {
						cands = append(cands, strings.Replace(t, "*", star, 1))
					}
				}
			}
		}
	}
	if sub == "" {
		for _, f := range []string{"source", "types", "typings", "module", "main"} {
			if s, ok := p.raw[f].(string); ok {
				cands = append(cands, s)
			}
		}
		cands = append(cands, "index")
	} else {
		cands = append(cands, sub)
	}
	for _, c := range cands {
		if f := r.file(path.Join(p.dir, c), 1); f != "" {
			return f
		}
	}
	return ""
}

// exportTargets lists an exports value's targets, conditions in a
// TypeScript-like order.
func exportTargets(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, exportTargets(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range []string{"source", "types", "import", "require", "node", "default"} {
			if e, ok := t[k]; ok {
				out = append(out, exportTargets(e)...)
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "source", "types", "import", "require", "node", "default":
			default:
				out = append(out, exportTargets(t[k])...)
			}
		}
		return out
	}
	return nil
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

// file finds the file p names: itself, with an extension, a ".js" written
// for ".ts", an index file, or a nested package.json's entry. When p lies
// in build output that is not checked in (dist, lib, build, out), the
// same path under src is tried (depth 1 only, for package entries).
func (r *resolver) file(p string, depth int) string {
	p = path.Clean(p)
	if r.files[p] {
		return p
	}
	stem := p
	for _, e := range []string{".js", ".jsx", ".mjs", ".cjs", ".d.ts", ".ts"} {
		if strings.HasSuffix(p, e) {
			stem = strings.TrimSuffix(p, e)
			break
		}
	}
	for _, e := range resolveExts {
		if r.files[stem+e] {
			return stem + e
		}
	}
	for _, e := range resolveExts {
		if r.files[p+"/index"+e] {
			return p + "/index" + e
		}
	}
	if pk := r.pkgDir[p]; pk != nil && depth == 0 {
		if f := r.pkgEntry(pk, ""); f != "" {
			return f
		}
	}
	if depth == 1 {
		for _, out := range []string{"dist", "lib", "build", "out", "esm", "cjs"} {
			if i := strings.Index(stem, "/"+out+"/"); i >= 0 {
				if f := r.file(stem[:i]+"/src/"+stem[i+len(out)+2:], 2); f != "" {
					return f
				}
			}
		}
	}
	return ""
}
