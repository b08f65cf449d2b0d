package implsearch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const src = `package p

type Stringer interface{ String() string }

type Pusher[T any] interface{ Push(T) }

type Keyer[K comparable] interface{ Key() K }

type Pair[A, B any] interface {
	First() A
	Second() B
}

type IntList struct{}

func (*IntList) Push(int)        {}
func (IntList) String() string   { return "" }

type Names []string

func (*Names) Push(s string) {}

type Popper struct{}

func (Popper) Pop() int { return 0 }

type Entry[K comparable] struct{ k K }

func (e Entry[K]) Key() K { return e.k }

type IntEntry struct{}

func (IntEntry) Key() int { return 0 }

type Both struct{}

func (Both) First() map[string][]int { return nil }
func (Both) Second() (chan *byte)    { return nil }

type Nested struct{}

func (Nested) F(m map[string][]int, f func(uint8) error) (chan *byte, bool) { return nil, false }

type Deep struct{}

func (Deep) G() [][][][][][][][][][]int { return nil }
`

// load type-checks src and returns its package-level named types by name.
func load(t *testing.T) map[string]*types.Named {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*types.Named{}
	for _, name := range pkg.Scope().Names() {
		out[name] = pkg.Scope().Lookup(name).Type().(*types.Named)
	}
	return out
}

func TestImplementsSome(t *testing.T) {
	named := load(t)
	tests := []struct {
		name, typ, iface string
		want             bool
	}{
		{"plain interface", "IntList", "Stringer", true},
		{"plain interface missing method", "Popper", "Stringer", false},
		{"unconstrained parameter from a parameter type", "IntList", "Pusher", true},
		{"unconstrained parameter, other type", "Names", "Pusher", true},
		{"no such method", "Popper", "Pusher", false},
		{"constrained parameter by position", "Entry", "Keyer", true},
		{"constrained parameter is not any type", "IntEntry", "Keyer", false},
		{"two unconstrained parameters from results", "Both", "Pair", true},
		{"interface against itself", "Pusher", "Pusher", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ, err := Instantiate(named[tc.typ])
			if err != nil {
				t.Fatal(err)
			}
			if !types.IsInterface(typ) {
				typ = types.NewPointer(typ)
			}
			if got := ImplementsSome(typ, named[tc.iface]); got != tc.want {
				t.Errorf("ImplementsSome(%s, %s) = %v, want %v", typ, tc.iface, got, tc.want)
			}
		})
	}
}

func TestInstantiate(t *testing.T) {
	named := load(t)
	var got []string
	for _, name := range []string{"IntList", "Entry", "Pair"} {
		typ, err := Instantiate(named[name])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, typ.String())
	}
	want := []string{"p.IntList", "p.Entry[example.com/args.A0]", "p.Pair[example.com/args.A0, example.com/args.A1]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instantiations (-want +got):\n%s", diff)
	}
}

func TestSigComponents(t *testing.T) {
	named := load(t)
	var got []string
	for _, c := range SigComponents(named["Nested"]) {
		got = append(got, c.String())
	}
	want := []string{
		"map[string][]int", "string", "[]int", "int",
		"func(uint8) error", "uint8", "error",
		"chan *byte", "*byte", "bool",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
}

// TestSigComponentsDepth checks the descent stops maxDepth levels below a
// result type: of ten nested slices, [][]int is the last component.
func TestSigComponentsDepth(t *testing.T) {
	comps := SigComponents(load(t)["Deep"])
	if len(comps) != maxDepth+1 || comps[maxDepth].String() != "[][]int" {
		t.Errorf("components %v, want %d ending with [][]int", comps, maxDepth+1)
	}
}
