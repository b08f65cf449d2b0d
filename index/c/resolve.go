package c

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/cinclude"
	"github.com/relayhq/relay/index/internal/frontend"
)

// maxByName bounds the candidates of a call that does not resolve to one
// function: more make no calls_by_name edges.
const maxByName = 8

// maxMacroDepth bounds how deep the expansion of macros calling macros
// is followed.
const maxMacroDepth = 4

// table is the repository's facts, indexed for resolution.
type table struct {
	files    map[string]*facts
	inc      *cinclude.Resolver
	externs  map[string][]string // function name → files defining it with external linkage
	assigns  map[string][]fieldAssign
	typedefs map[string]string // typedef name → the type it names (first declared)
	closure  map[string][]string
	macros   map[string]map[string]*macro   // per file: its macros by name (the first of a name)
	statics  map[string]map[string][]string // per file: its static functions' guards by name (the first of a name)
}

// fieldAssign is an assign with its file.
type fieldAssign struct {
	assign
	file string
}

func newTable(files map[string]*facts, inc *cinclude.Resolver) *table {
	t := &table{files: files, inc: inc, externs: map[string][]string{}, assigns: map[string][]fieldAssign{},
		typedefs: map[string]string{}, closure: map[string][]string{},
		macros: map[string]map[string]*macro{}, statics: map[string]map[string][]string{}}
	fields := map[string][]member{} // struct, union or typedef name → its fields in order (the first declared)
	for _, rel := range frontend.SortedKeys(files) {
		f := files[rel]
		ms, st := map[string]*macro{}, map[string][]string{}
		for i := range f.Macros {
			if _, ok := ms[f.Macros[i].Name]; !ok {
				ms[f.Macros[i].Name] = &f.Macros[i]
			}
		}
		for _, fn := range f.Funcs {
			if _, ok := st[fn.Name]; fn.Static && !ok {
				st[fn.Name] = fn.Guard
			}
		}
		t.macros[rel], t.statics[rel] = ms, st
		for _, fn := range f.Funcs {
			if !fn.Static && !slices.Contains(t.externs[fn.Name], rel) {
				t.externs[fn.Name] = append(t.externs[fn.Name], rel)
			}
		}
		for _, ty := range f.Types {
			if _, ok := t.typedefs[ty.Name]; ty.Kind == "typedef" && !ok {
				t.typedefs[ty.Name] = ty.Of
			}
			key := ty.Kind + " " + ty.Name
			if ty.Kind == "typedef" {
				key = ty.Name
			}
			if _, ok := fields[key]; !ok && len(ty.Fields) > 0 && (ty.Kind != "typedef" || ty.Of == "") {
				fields[key] = ty.Fields
			}
		}
	}
	for _, rel := range frontend.SortedKeys(files) {
		for _, a := range files[rel].Inits {
			if a.Field == "" { // by position: the struct's field there
				fs := fields[t.canonType(a.Type)]
				if a.Pos < 1 || a.Pos > len(fs) {
					continue
				}
				a.Field = fs[a.Pos-1].Name
			}
			t.assigns[a.Field] = append(t.assigns[a.Field], fieldAssign{assign: a, file: rel})
		}
	}
	return t
}

// includes returns the files rel's includes resolve to, in order, and
// whether a quoted one did not resolve.
func (t *table) includes(rel string) (out []string, unres bool) {
	f := t.files[rel]
	if f == nil {
		return nil, false
	}
	for _, in := range f.Includes {
		p, ok := t.inc.Resolve(rel, in.Path, in.Quoted)
		switch {
		case ok && t.files[p] != nil:
			out = append(out, p)
		case in.Quoted:
			unres = true
		}
	}
	return out, unres
}

// visible returns rel and the files it includes, transitively, in the
// order a search finds them.
func (t *table) visible(rel string) []string {
	if v, ok := t.closure[rel]; ok {
		return v
	}
	seen := map[string]bool{rel: true}
	out := []string{rel}
	for i := 0; i < len(out); i++ {
		incs, _ := t.includes(out[i])
		for _, p := range incs {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	t.closure[rel] = out
	return out
}

// canonType returns the name a type is known by for field calls: a
// typedef's struct ("foo_t" → "struct foo"), else the name itself.
func (t *table) canonType(name string) string {
	for range 8 {
		of, ok := t.typedefs[name]
		if !ok || of == "" {
			return name
		}
		name = of
	}
	return name
}

// target is a resolved call: the callee's node and whether it is only a
// candidate (calls_by_name).
type target struct {
	id     graphdb.NodeID
	byName bool
}

// resolver resolves one file's calls and types.
type resolver struct {
	t    *table
	rel  string
	vis  []string
	refs map[string]bool // global names the resolution looked up (attrRefs)
}

// call resolves a call by name at the file's scope, as the preprocessor
// then the compiler see it: a macro first (followed into what its body
// calls), then a static function; a macro or a function inside a
// preprocessor branch that evidently drops it (guardsHold) is skipped.
func (r *resolver) call(name string, depth int) []target {
	if v, m := r.findMacro(name); m != nil && r.guardsHold(m.Guard) {
		out := []target{{id: macroID(v, m.Name)}}
		if depth < maxMacroDepth {
			for _, c := range m.Calls {
				if c != name {
					out = append(out, r.call(c, depth+1)...)
				}
			}
			for _, c := range m.Idents { // BLOCK_IDX(__VA_ARGS__, BLOCK_2, BLOCK_1)(…) calls one of them
				if c != name && r.funcMacro(c) {
					out = append(out, r.call(c, depth+1)...)
				}
			}
		}
		return out
	}
	for _, v := range r.vis { // the file's static functions, then its headers' static inline ones
		if g, ok := r.t.statics[v][name]; ok && r.guardsHold(g) {
			return []target{{id: funcID(v, name)}}
		}
	}
	return r.extern(name)
}

// findMacro returns the macro of that name the file or its headers
// define first, and the file; nil when none does.
func (r *resolver) findMacro(name string) (string, *macro) {
	for _, v := range r.vis {
		if m := r.t.macros[v][name]; m != nil {
			return v, m
		}
	}
	return "", nil
}

// extern resolves a name to the repository's definitions with external
// linkage: the one there is, else the one among several that a visible
// file defines, else all as candidates.
func (r *resolver) extern(name string) []target {
	r.refs[name] = true
	defs := r.t.externs[name]
	switch {
	case len(defs) == 1:
		return []target{{id: funcID(defs[0], name)}}
	case len(defs) == 0 || len(defs) > maxByName:
		return nil
	}
	for _, v := range r.vis {
		if slices.Contains(defs, v) {
			return []target{{id: funcID(v, name)}}
		}
	}
	dir := path.Dir(r.rel)
	var near []string
	for _, d := range defs {
		if path.Dir(d) == dir {
			near = append(near, d)
		}
	}
	if len(near) == 1 {
		return []target{{id: funcID(near[0], name)}}
	}
	out := make([]target, len(defs))
	for i, d := range defs {
		out[i] = target{id: funcID(d, name), byName: true}
	}
	return out
}

// field resolves a call through a struct field: the functions the
// repository's initializers assign to that field of the receiver's type,
// or of any type when the receiver's is not evident (candidates when
// several types have such assignments).
func (r *resolver) field(field, recv string) []target {
	r.refs["."+field] = true
	r.refs[".*"] = true // an assignment by position may name the field
	want := ""
	if recv != "" {
		want = r.t.canonType(recv)
	}
	types := map[string]bool{}
	var matched []fieldAssign
	for _, a := range r.t.assigns[field] {
		ct := r.t.canonType(a.Type)
		if want != "" && ct != want {
			continue
		}
		types[ct] = true
		matched = append(matched, a)
	}
	byName := len(types) > 1
	if byName && len(matched) > maxByName {
		return nil
	}
	var out []target
	for _, a := range matched {
		ar := &resolver{t: r.t, rel: a.file, vis: r.t.visible(a.file), refs: r.refs}
		for _, tg := range ar.call(a.Func, maxMacroDepth) {
			tg.byName = tg.byName || byName
			out = append(out, tg)
		}
	}
	return out
}

// typeNode returns the node of a type name visible from the file ("struct
// foo", a typedef name), else the one the repository declares.
func (r *resolver) typeNode(name string) (graphdb.NodeID, bool) {
	if name == "" {
		return "", false
	}
	kind, tn := "typedef", name
	if k, n, ok := strings.Cut(name, " "); ok {
		kind, tn = k, n
	}
	find := func(rel string) bool {
		for _, ty := range r.t.files[rel].Types {
			if ty.Kind == kind && ty.Name == tn {
				return true
			}
		}
		return false
	}
	for _, v := range r.vis {
		if find(v) {
			return typeID(v, kind, tn), true
		}
	}
	return "", false
}

func funcID(rel, name string) graphdb.NodeID  { return graphdb.NodeID("c:" + rel + ":" + name) }
func macroID(rel, name string) graphdb.NodeID { return graphdb.NodeID("c:" + rel + ":#" + name) }
func typeID(rel, kind, name string) graphdb.NodeID {
	return graphdb.NodeID("c:" + rel + ":" + kind + " " + name)
}

// guardsHold reports whether the conditions around a call may hold: a
// condition on a macro that the file or its headers define to an integer
// (or define at all, for def:) is evaluated; one on a name they do not
// define may hold (the build may define it).
func (r *resolver) guardsHold(guards []string) bool {
	for _, g := range guards {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(g, "!")
		name, def := strings.CutPrefix(g, "def:")
		_, m := r.findMacro(name)
		if m == nil || !def && m.Func {
			continue
		}
		v := true
		if !def {
			n, err := strconv.ParseInt(strings.TrimSpace(m.Value), 0, 64)
			if err != nil {
				continue
			}
			v = n != 0
		}
		if v == neg {
			return false
		}
	}
	return true
}

// funcMacro reports whether the file or its headers define name as a
// function-like macro.
func (r *resolver) funcMacro(name string) bool {
	_, m := r.findMacro(name)
	return m != nil && m.Func
}
