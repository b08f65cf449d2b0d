//go:build cgo

package java

import (
	"slices"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// byNameKey is how a file lists one of its by-name calls in
// java.byname: the method name and the number of arguments, which
// together choose the candidates (walker.byName).
func byNameKey(name string, nargs int) string { return name + "/" + strconv.Itoa(nargs) }

// byNameCandidates returns the ids of the methods of ms that take
// nargs arguments, sorted; none when there are more than maxByName.
func byNameCandidates(ms []*methodDef, nargs int) []graphdb.NodeID {
	var ids []graphdb.NodeID
	for _, m := range ms {
		if arity(m, nargs) {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) > maxByName {
		return nil
	}
	slices.Sort(ids)
	return ids
}

// addByNameMethods adds the methods of sc that by-name calls may land on
// (every type's methods but constructors, as newTable indexes them) to
// idx by name; with only, just the names in only.
func addByNameMethods(idx map[string][]*methodDef, sc *fileScope, only map[string]bool) {
	for _, ty := range sc.Types {
		for _, m := range ty.Methods {
			if m.ID != "" && m.Name != "<init>" && (only == nil || only[m.Name]) {
				idx[m.Name] = append(idx[m.Name], m)
			}
		}
	}
}

// DESIGN: by-name candidates in incremental Java runs. A call whose
// receiver's type is not evident gets as candidates every repository
// method of its name and arity, so editing one file can change the
// by-name edges of files whose resolution read nothing of it (java.deps).
// Each file node lists the name and argument count of its by-name calls
// (java.byname), those with no candidate or more than maxByName
// included. After the changed files' declarations are read, the candidate
// lists of the method names they declared before (their stored scope; a
// deleted file's too) or declare now are computed over the old and the
// new scopes for each argument count that a stored file's by-name calls
// use; a list that differs, cut off at maxByName, re-resolves the
// files that look it up. A name that stays over the limit, a method of
// another arity and a body edit re-resolve nothing.

// byNameDependents reports which stored files (not parsed) must be
// re-resolved because the candidates of one of their by-name calls
// changed. stored holds every stored scope of an existing file (parsed
// ones included, with their old scopes), gone those of the deleted files,
// files the fresh declarations.
func byNameDependents(stored, gone map[string]*storedFile, files []*sourceFile) map[string]bool {
	touched := map[string]bool{}
	for _, st := range gone {
		methodNames(st.scope, touched)
	}
	parsed := map[string]bool{}
	for _, f := range files {
		parsed[f.rel] = true
		methodNames(f.scope, touched)
		if st := stored[f.rel]; st != nil {
			methodNames(st.scope, touched)
		}
	}
	out := map[string]bool{}
	if len(touched) == 0 {
		return out
	}
	was, now := map[string][]*methodDef{}, map[string][]*methodDef{}
	for rel, st := range stored {
		addByNameMethods(was, st.scope, touched)
		if !parsed[rel] {
			addByNameMethods(now, st.scope, touched)
		}
	}
	for _, st := range gone {
		addByNameMethods(was, st.scope, touched)
	}
	for _, f := range files {
		addByNameMethods(now, f.scope, touched)
	}
	changed := map[string]bool{} // by key
	for rel, st := range stored {
		if parsed[rel] {
			continue
		}
		for _, k := range st.byName {
			name, n, _ := strings.Cut(k, "/")
			if !touched[name] {
				continue
			}
			c, ok := changed[k]
			if !ok {
				nargs, _ := strconv.Atoi(n)
				c = !slices.Equal(byNameCandidates(was[name], nargs), byNameCandidates(now[name], nargs))
				changed[k] = c
			}
			if c {
				out[rel] = true
				break
			}
		}
	}
	return out
}

// methodNames adds the names of sc's methods (constructors left out)
// to into.
func methodNames(sc *fileScope, into map[string]bool) {
	for _, ty := range sc.Types {
		for _, m := range ty.Methods {
			if m.ID != "" && m.Name != "<init>" {
				into[m.Name] = true
			}
		}
	}
}
