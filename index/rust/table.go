//go:build cgo

package rust

import (
	"sort"
	"strings"
)

// table is every module's declarations, for resolution: modules by path,
// the methods of each type (inherent, trait impls, provided trait
// methods) and the names the by-name candidates come from.
type table struct {
	mods    map[string]*modInfo
	crates  map[string]bool        // root modules of the crates
	methods map[string][]*methRef  // by the Self type's path ("ext:Name" for a type outside the repository)
	traits  map[string][]string    // type path → the traits it implements
	fnNames map[string][]string    // free function name → ids
	mNames  map[string][]string    // method name (taking self) → ids
	macros  map[string][]*itemRef  // macro name → definitions
	idFile  map[string]string      // node id → file
	derefs  map[string]derefTarget // type path → what it derefs to (impl Deref)
}

// derefTarget is the Target of an impl Deref block, written in mod.
type derefTarget struct {
	text, mod, self, file string
}

// modInfo is one module: its items by name, its uses and globs.
type modInfo struct {
	path, file, crate string
	items             map[string]*itemRef
	uses              map[string][]useDecl
	globs             []useDecl
}

type itemRef struct {
	*item
	mod, file string
	modAlt    string // a module of the same name (its path)
}

// isValue reports whether items of the kind live in the value namespace,
// beside a module of the same name.
func isValue(kind string) bool { return kind == "fn" || kind == "const" || kind == "static" }

// methRef is a function of an impl block or trait.
type methRef struct {
	*fnSig
	mod, file string
	self      string // the Self type as written (resolves in mod)
	trait     string // the trait's path ("" for an inherent method)
	provided  bool   // a trait's own method (declaration or default body)
}

// newTable builds the table from the scopes of every Rust file (by
// path) and the crates' root modules.
func newTable(scopes map[string]*fileScope, lay *layout) *table {
	t := &table{mods: map[string]*modInfo{}, crates: map[string]bool{}, methods: map[string][]*methRef{}, traits: map[string][]string{},
		fnNames: map[string][]string{}, mNames: map[string][]string{}, macros: map[string][]*itemRef{}, idFile: map[string]string{}, derefs: map[string]derefTarget{}}
	for _, m := range lay.mods {
		if m.Root {
			t.crates[m.Crate] = true
		}
	}
	rels := make([]string, 0, len(scopes))
	for rel := range scopes {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		crate := lay.mods[rel].Crate
		for _, ms := range scopes[rel].Mods {
			mi := t.mods[ms.Path]
			if mi == nil {
				mi = &modInfo{path: ms.Path, file: rel, crate: crate, items: map[string]*itemRef{}, uses: map[string][]useDecl{}}
				t.mods[ms.Path] = mi
			}
			for _, it := range ms.Items {
				ref := &itemRef{item: it, mod: ms.Path, file: rel}
				// a module and a function may share a name (they live in
				// different namespaces): the item is the value, and a
				// longer path goes through the module (modAlt)
				switch old, ok := mi.items[it.Name]; {
				case !ok:
					mi.items[it.Name] = ref
				case old.Kind == "mod" && isValue(it.Kind):
					ref.modAlt = old.Target
					mi.items[it.Name] = ref
				case it.Kind == "mod" && isValue(old.Kind):
					old.modAlt = it.Target
				case old.Kind == "mod" && it.Kind != "mod":
					mi.items[it.Name] = ref
				}
				switch it.Kind {
				case "fn":
					t.fnNames[it.Name] = append(t.fnNames[it.Name], it.ID)
				case "macro":
					t.macros[it.Name] = append(t.macros[it.Name], ref)
				}
				if it.ID != "" {
					t.idFile[it.ID] = rel
				}
				for _, m := range it.Methods {
					t.idFile[m.ID] = rel
				}
			}
			for _, u := range ms.Uses {
				if u.Glob {
					mi.globs = append(mi.globs, u)
				} else {
					mi.uses[u.Name] = append(mi.uses[u.Name], u)
				}
			}
		}
	}
	t.addImpls(scopes, rels)
	return t
}

// addImpls registers the methods of every impl block and trait under the
// Self type's path, once every module is known.
func (t *table) addImpls(scopes map[string]*fileScope, rels []string) {
	l := newLookup(t)
	for _, rel := range rels {
		for _, ms := range scopes[rel].Mods {
			for _, it := range ms.Items {
				if it.Kind != "trait" {
					continue
				}
				p := ms.Path + "::" + it.Name
				for _, m := range it.Methods {
					t.methods[p] = append(t.methods[p], &methRef{fnSig: m, mod: ms.Path, file: rel, self: it.Name, trait: p, provided: true})
					if m.Self {
						t.mNames[m.Name] = append(t.mNames[m.Name], m.ID)
					}
				}
			}
			for _, d := range ms.Impls {
				key := l.typeKey(ms.Path, d.Self)
				trait := ""
				if d.Trait != "" {
					if e := l.resolveType(ms.Path, d.Trait, ""); e.kind == "trait" {
						trait = e.path
					}
				}
				if key == "" {
					continue
				}
				if trait != "" {
					t.traits[key] = append(t.traits[key], trait)
				}
				if d.Target != "" && baseName(d.Trait) == "Deref" {
					t.derefs[key] = derefTarget{text: d.Target, mod: ms.Path, self: d.Self, file: rel}
				}
				for _, m := range d.Methods {
					t.methods[key] = append(t.methods[key], &methRef{fnSig: m, mod: ms.Path, file: rel, self: d.Self, trait: trait})
					t.idFile[m.ID] = rel
					if m.Self {
						t.mNames[m.Name] = append(t.mNames[m.Name], m.ID)
					}
				}
			}
		}
	}
}

// ent is what a path resolves to.
type ent struct {
	kind string // an item kind, "mod", "method", "variant", "ext" (outside the repository), "" (unresolved)
	path string // the item's or module's path; a method's or variant's owner
	it   *itemRef
	m    *methRef
	// modAlt: the name is also a module (its path), which a longer path
	// goes through
	modAlt string
}

// lookup resolves names for one file's resolution, recording the files
// it read (deps) and the names that did not resolve where the repository
// could declare them (unres).
type lookup struct {
	tab    *table
	deps   map[string]bool
	unres  map[string]bool
	byName map[string]bool
	depth  int
}

func newLookup(t *table) *lookup {
	return &lookup{tab: t, deps: map[string]bool{}, byName: map[string]bool{}, unres: map[string]bool{}}
}

// maxUseDepth bounds the chains of uses and globs a name is followed
// through (re-exports of re-exports; cycles end here).
const maxUseDepth = 16

// parentMod is the module above p ("" at a crate root).
func parentMod(p string) string {
	if i := strings.LastIndex(p, "::"); i >= 0 {
		return p[:i]
	}
	return ""
}

// resolvePath resolves a path as written in module mod (self: the Self
// type text, "" outside impls).
func (l *lookup) resolvePath(mod string, segs []string, self string) ent {
	if len(segs) == 0 || l.depth > maxUseDepth {
		return ent{}
	}
	l.depth++
	defer func() { l.depth-- }()
	e := l.first(mod, segs[0], self, len(segs) > 1)
	for _, s := range segs[1:] {
		e = l.member(e, s)
	}
	return e
}

// first resolves a path's first segment.
func (l *lookup) first(mod, s, self string, more bool) ent {
	mi := l.tab.mods[mod]
	switch s {
	case "crate", "$crate":
		if mi != nil {
			return ent{kind: "mod", path: mi.crate}
		}
		return ent{kind: "mod", path: strings.SplitN(mod, "::", 2)[0]}
	case "self":
		return ent{kind: "mod", path: mod}
	case "super":
		return ent{kind: "mod", path: parentMod(mod)}
	case "Self":
		if self == "" || self == "Self" {
			return ent{}
		}
		return l.resolveType(mod, self, "")
	}
	if e := l.inModule(mod, s); e.kind != "" {
		return e
	}
	if l.tab.crates[s] {
		return ent{kind: "mod", path: s}
	}
	if more || externalNames[s] {
		return ent{kind: "ext"}
	}
	if !isPrimitive(s) && s != "[]" {
		l.unres[s] = true
	}
	return ent{}
}

// externalNames are the standard library's prelude and crates: a path
// through one of them goes outside the repository.
var externalNames = map[string]bool{
	"std": true, "core": true, "alloc": true, "Some": true, "None": true, "Ok": true, "Err": true, "Box": true, "Vec": true, "String": true,
	"Option": true, "Result": true, "drop": true, "Default": true, "Clone": true, "Iterator": true, "ToString": true, "From": true, "Into": true,
}

// inModule looks a name up in a module: its items, its uses, the modules
// of its globs, a child module.
func (l *lookup) inModule(mod, name string) ent {
	mi := l.tab.mods[mod]
	if mi == nil {
		return ent{}
	}
	l.deps[mi.file] = true
	it, item := mi.items[name]
	if item && (it.Kind != "mod" || len(mi.uses[name]) == 0) {
		return l.itemEnt(it)
	}
	if l.depth > maxUseDepth {
		return ent{}
	}
	// `mod poll_fn; pub use poll_fn::poll_fn;`: the name is a module and
	// a function; the function is the value, the module the path prefix
	var test ent
	for _, u := range mi.uses[name] {
		e := l.resolvePath(mod, strings.Split(u.Path, "::"), "")
		switch {
		case e.kind == "":
		case u.Test: // #[cfg(test)] use mocks::f beside use real::f
			if test.kind == "" {
				test = e
			}
		case item && e.kind != "mod":
			e.modAlt = it.Target
			return e
		case !item:
			return e
		}
	}
	if item {
		return l.itemEnt(it)
	}
	if test.kind != "" {
		return test
	}
	if _, ok := l.tab.mods[mod+"::"+name]; ok {
		return ent{kind: "mod", path: mod + "::" + name}
	}
	ext := false
	for _, g := range mi.globs {
		l.depth++
		e := l.resolvePath(mod, strings.Split(g.Path, "::"), "")
		var r ent
		switch e.kind {
		case "mod":
			if e.path != mod {
				r = l.inModule(e.path, name)
			}
		case "enum":
			r = l.member(e, name)
		case "ext":
			ext = true
		}
		l.depth--
		if r.kind != "" {
			return r
		}
	}
	if ext {
		return ent{kind: "ext"}
	}
	return ent{}
}

func (l *lookup) itemEnt(it *itemRef) ent {
	l.deps[it.file] = true
	switch it.Kind {
	case "mod":
		return ent{kind: "mod", path: it.Target}
	case "type":
		if it.Target != "" && l.depth <= maxUseDepth {
			l.depth++
			defer func() { l.depth-- }()
			if e := l.resolveType(it.mod, it.Target, ""); e.kind != "" {
				return e
			}
		}
	}
	return ent{kind: it.Kind, path: it.mod + "::" + it.Name, it: it, modAlt: it.modAlt}
}

// member resolves one more segment of a path after e.
func (l *lookup) member(e ent, s string) ent {
	if e.modAlt != "" {
		e = ent{kind: "mod", path: e.modAlt}
	}
	switch e.kind {
	case "mod":
		if s == "super" {
			return ent{kind: "mod", path: parentMod(e.path)}
		}
		if s == "self" {
			return e
		}
		if r := l.inModule(e.path, s); r.kind != "" {
			return r
		}
		if l.tab.mods[e.path] == nil {
			return ent{kind: "ext"} // a module of a crate outside the repository
		}
		l.unres[s] = true
		return ent{}
	case "ext":
		return e
	case "enum":
		for _, v := range e.it.Variants {
			if v == s {
				return ent{kind: "variant", path: e.path, it: e.it}
			}
		}
	}
	if e.kind == "struct" || e.kind == "enum" || e.kind == "union" || e.kind == "trait" {
		if m := l.method(e.path, s); m != nil {
			return ent{kind: "method", path: e.path, m: m}
		}
		l.unres[s] = true
	}
	return ent{}
}

// method finds the method name of the type (or trait) at path: inherent
// methods first, then those of its trait impls, then the provided methods
// of the traits it implements and of their supertraits, breadth-first.
func (l *lookup) method(path, name string) *methRef {
	var trait *methRef
	for _, m := range l.tab.methods[path] {
		if m.Name == name {
			l.deps[m.file] = true
			if m.trait == "" || m.provided {
				return m
			}
			if trait == nil {
				trait = m
			}
		}
	}
	if trait != nil {
		return trait
	}
	seen := map[string]bool{path: true}
	queue := append([]string(nil), l.tab.traits[path]...)
	if mi := l.traitItem(path); mi != nil {
		queue = append(queue, l.supers(mi)...)
	}
	for len(queue) > 0 && len(seen) < 64 {
		tr := queue[0]
		queue = queue[1:]
		if seen[tr] {
			continue
		}
		seen[tr] = true
		for _, m := range l.tab.methods[tr] {
			if m.Name == name {
				l.deps[m.file] = true
				return m
			}
		}
		if mi := l.traitItem(tr); mi != nil {
			queue = append(queue, l.supers(mi)...)
		}
		queue = append(queue, l.tab.traits[tr]...) // impl<T: Named> Greeter for T: every Named is a Greeter
	}
	return nil
}

// traitItem returns the trait declared at path, nil when it is none.
func (l *lookup) traitItem(path string) *itemRef {
	mi := l.tab.mods[parentMod(path)]
	if mi == nil {
		return nil
	}
	it := mi.items[lastSeg(path)]
	if it == nil || it.Kind != "trait" {
		return nil
	}
	return it
}

// supers resolves a trait's supertraits to paths.
func (l *lookup) supers(it *itemRef) []string {
	var out []string
	for _, s := range it.Supers {
		if e := l.resolveType(it.mod, s, ""); e.kind == "trait" {
			out = append(out, e.path)
		}
	}
	return out
}
