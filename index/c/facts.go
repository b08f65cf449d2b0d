package c

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// facts are what one file declares and calls, as written: what
// resolution needs, stored on the file node (attrFacts) so that a
// dependent file is re-resolved without being parsed again.
type facts struct {
	Includes []include `json:"i,omitempty"`
	Funcs    []fn      `json:"f,omitempty"`
	Types    []typ     `json:"t,omitempty"`
	Macros   []macro   `json:"m,omitempty"`
	Inits    []assign  `json:"a,omitempty"`
	Errors   []string  `json:"e,omitempty"` // syntax errors: "line:col: msg"
}

// include is one #include.
type include struct {
	Path   string `json:"p"`
	Quoted bool   `json:"q,omitempty"`
	Line   int    `json:"l"`
}

// fn is a function definition.
type fn struct {
	Name   string     `json:"n"`
	Static bool       `json:"s,omitempty"`
	Line   int        `json:"l"`
	End    int        `json:"e"`
	Sig    string     `json:"g,omitempty"`
	Doc    string     `json:"d,omitempty"`
	Ret    string     `json:"r,omitempty"` // the return type's name ("struct foo", "foo_t"); "" for a built-in type
	Params []string   `json:"p,omitempty"` // the parameters' type names
	Calls  []callSite `json:"c,omitempty"`
	Guard  []string   `json:"u,omitempty"` // the preprocessor conditions around its first line
}

// callSite is one call in a function's body: by name (Name), or through
// a struct field (Field) of a receiver whose type name is Recv ("" when
// not evident).
type callSite struct {
	Name  string   `json:"n,omitempty"`
	Field string   `json:"f,omitempty"`
	Recv  string   `json:"r,omitempty"`
	Line  int      `json:"l"`
	Guard []string `json:"g,omitempty"` // the preprocessor conditions around it (pp.go: guardOf)
}

// typ is a struct, union or enum with a body, or a typedef.
type typ struct {
	Kind   string   `json:"k"` // struct, union, enum, typedef
	Name   string   `json:"n"`
	Line   int      `json:"l"`
	End    int      `json:"e"`
	Of     string   `json:"o,omitempty"` // a typedef's type name ("struct foo"); "" for a built-in or an anonymous struct it holds
	Fields []member `json:"m,omitempty"`
	Doc    string   `json:"d,omitempty"`
}

// member is a field of a struct or union, or an enum's constant.
type member struct {
	Name string `json:"n"`
	Line int    `json:"l"`
}

// macro is a #define; Calls are the names its body calls (a name
// followed by "(").
type macro struct {
	Name   string   `json:"n"`
	Line   int      `json:"l"`
	End    int      `json:"e"`
	Func   bool     `json:"f,omitempty"`
	Params []string `json:"p,omitempty"`
	Calls  []string `json:"c,omitempty"`
	Idents []string `json:"x,omitempty"` // the other names of its body (a function-like macro among them is expanded too)
	Sig    string   `json:"g,omitempty"`
	Value  string   `json:"v,omitempty"` // an object-like macro's body, when short (guards read it)
	Guard  []string `json:"u,omitempty"` // the preprocessor conditions around the #define
}

// assign is a function assigned to a struct field by an initializer,
// `.read = foo_read` (Field) or by position (Pos, 1-based: the field is
// found at resolution from the struct's definition); Type is the
// initialized type's name.
type assign struct {
	Type  string `json:"t"`
	Field string `json:"f,omitempty"`
	Pos   int    `json:"x,omitempty"`
	Func  string `json:"v"`
	Line  int    `json:"l"`
}

func (f *facts) encode() string {
	b, _ := json.Marshal(f)
	return string(b)
}

func decodeFacts(s string) (*facts, bool) {
	if s == "" {
		return nil, false
	}
	var f facts
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		return nil, false
	}
	return &f, true
}

// surface fingerprints what including files read of a file: its
// includes, types, macros, static functions and initializers (not the
// bodies of its functions).
func (f *facts) surface() string {
	s := *f
	s.Funcs = nil
	s.Errors = nil
	for _, fn := range f.Funcs {
		if fn.Static {
			s.Funcs = append(s.Funcs, fn)
			s.Funcs[len(s.Funcs)-1].Calls = nil
		}
	}
	sum := sha256.Sum256([]byte(s.encode()))
	return hex.EncodeToString(sum[:8])
}

// keys are the names a file gives the whole repository: its external
// functions, and ".field" for each field its initializers assign (".*"
// for one assigned by position, which any field call may reach),
// followed by "\x00" and the assignment (type and function), so that a
// changed assignment changes the key; refKey drops the assignment.
func (f *facts) keys() []string {
	var ks []string
	for _, fn := range f.Funcs {
		if !fn.Static {
			ks = append(ks, fn.Name)
		}
	}
	for _, a := range f.Inits {
		f := a.Field
		if f == "" {
			f = "*"
		}
		ks = append(ks, "."+f+"\x00"+a.Type+"\x00"+a.Func)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// refKey returns the c.refs name a key stands for.
func refKey(k string) string {
	name, _, _ := strings.Cut(k, "\x00")
	return name
}
