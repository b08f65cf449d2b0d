//go:build cgo

package rust

import "strings"

// ty is the type of an expression as far as it is evident: a type of the
// repository (path, the item's path) or one outside it (path
// "ext:Name"), with its generic arguments; the zero ty is unknown.
type ty struct {
	path string
	args []ty
}

func (t ty) known() bool     { return t.path != "" }
func (t ty) ext() bool       { return strings.HasPrefix(t.path, "ext:") }
func (t ty) extName() string { return strings.TrimPrefix(t.path, "ext:") }

// arg0 is the first generic argument (Option<T>'s T), unknown when none.
func (t ty) arg0() ty {
	if len(t.args) == 0 {
		return ty{}
	}
	return t.args[0]
}

// derefs are the types outside the repository whose methods are looked
// up on what they hold (auto-deref: a Box<Foo>'s foo.m() is Foo::m).
var derefs = map[string]bool{"Box": true, "Rc": true, "Arc": true, "Pin": true, "Cow": true, "ManuallyDrop": true, "[]": true, "NonNull": true}

// splitType splits a type text into its path and its generic arguments:
// "a::B<C,D<E>>" is "a::B" and ["C", "D<E>"].
func splitType(s string) (string, []string) {
	i := strings.IndexByte(s, '<')
	if i < 0 || !strings.HasSuffix(s, ">") {
		return s, nil
	}
	var args []string
	depth, start := 0, i+1
	for j := i + 1; j < len(s)-1; j++ {
		switch s[j] {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, s[start:j])
				start = j + 1
			}
		}
	}
	args = append(args, s[start:len(s)-1])
	return s[:i], args
}

// splitArgs splits a list of type texts at its top-level commas.
func splitArgs(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// resolveType resolves a type text's path in mod (self: the Self type's
// text).
func (l *lookup) resolveType(mod, text, self string) ent {
	name, _ := splitType(text)
	if name == "" {
		return ent{}
	}
	if name == "Self" && (self == "" || self == "Self") {
		return ent{}
	}
	return l.resolvePath(mod, strings.Split(name, "::"), self)
}

// typeKey is the key of table.methods for the type text: the repository
// type's path, "ext:Name" for a type outside it, "" when unresolved.
func (l *lookup) typeKey(mod, text string) string {
	if text == "" {
		return ""
	}
	switch e := l.resolveType(mod, text, ""); e.kind {
	case "struct", "enum", "union", "trait":
		return e.path
	case "ext", "":
		name, _ := splitType(text)
		if e.kind == "" && strings.Contains(name, "::") {
			return ""
		}
		return "ext:" + lastSeg(name)
	}
	return ""
}

// tyOf evaluates a type text written in mod.
func (l *lookup) tyOf(mod, text, self string) ty { return l.tySub(mod, text, self, nil) }

// tySub evaluates a type text written in mod, its generic parameters
// ("$T") taken from sub.
func (l *lookup) tySub(mod, text, self string, sub map[string]ty) ty {
	if text == "" || l.depth > maxUseDepth {
		return ty{}
	}
	name, args := splitType(text)
	if strings.HasPrefix(name, "$") {
		return sub[name]
	}
	var t ty
	switch e := l.resolveType(mod, name, self); e.kind {
	case "struct", "enum", "union", "trait":
		t.path = e.path
	case "ext":
		t.path = "ext:" + lastSeg(name)
	case "":
		if isPrimitive(name) || externalNames[name] || name == "[]" {
			t.path = "ext:" + name
		} else {
			return ty{}
		}
	default:
		return ty{}
	}
	l.depth++
	for _, a := range args {
		t.args = append(t.args, l.tySub(mod, a, self, sub))
	}
	l.depth--
	return t
}

func isPrimitive(s string) bool {
	switch s {
	case "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64":
		return true
	}
	return false
}

// bindArgs maps the generic parameters of a Self type as written
// ("Mutex<$T>") to the type arguments of a receiver of that type
// (Mutex<Inner>: $T is Inner).
func bindArgs(self string, recv ty) map[string]ty {
	_, args := splitType(self)
	var sub map[string]ty
	for i, a := range args {
		if strings.HasPrefix(a, "$") && i < len(recv.args) && recv.args[i].known() {
			if sub == nil {
				sub = map[string]ty{}
			}
			sub[a] = recv.args[i]
		}
	}
	return sub
}
