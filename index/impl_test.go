package index

import (
	"go/types"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

// TestImplementsMatchesGoTypes checks the fingerprint-based implements
// edges against types.Implements over every (concrete named type,
// interface) and (interface, other interface) pair of each sample
// repository, the interfaces declared outside the repository that it
// references included. Generic types are compared as the indexer defines
// them: instantiated with the same distinct arguments by position
// (G[A0, A1] against I[A0]).
func TestImplementsMatchesGoTypes(t *testing.T) {
	repos := []string{"extiface", "iface", "embedding", "generics", "genimpl", "calls", "tests", "internal/callcheck/testdata/sample.txtar"}
	for _, repo := range repos {
		t.Run(repo, func(t *testing.T) {
			t.Parallel()
			root := extractTxtar(t, repo)
			cfg := &packages.Config{
				Context: t.Context(),
				Mode: packages.NeedName | packages.NeedTypes | packages.NeedDeps | packages.NeedImports | packages.NeedFiles |
					packages.NeedSyntax | packages.NeedTypesInfo,
				Dir: root,
				Env: append(cfgEnv(), "GOWORK=off"),
			}
			pkgs, err := packages.Load(cfg, "./...")
			if err != nil {
				t.Fatal(err)
			}
			var sets []methodSet
			type named struct {
				id string
				t  *types.Named
			}
			var concrete, ifaces []named
			inRepo := map[string]bool{}
			for _, p := range pkgs {
				inRepo[p.PkgPath] = true
			}
			var exts []extIface
			extSeen := map[string]bool{}
			for _, p := range pkgs {
				if len(p.Errors) > 0 {
					t.Fatalf("%s: %v", p.PkgPath, p.Errors)
				}
				sets = append(sets, methodSets(p.Types)...)
				x := &goExtractor{fset: p.Fset, pkg: p.Types, info: p.TypesInfo, inRepo: func(s string) bool { return inRepo[s] }}
				var srcs []*srcFile
				for _, f := range p.Syntax {
					srcs = append(srcs, &srcFile{rel: p.Fset.Position(f.Pos()).Filename, ast: f})
				}
				x.extract(srcs)
				exts = append(exts, x.externals()...)
				for n := range x.exts {
					if id := string(symID(extQName(n))); !extSeen[id] {
						extSeen[id] = true
						ifaces = append(ifaces, named{id, n})
					}
				}
				scope := p.Types.Scope()
				for _, name := range scope.Names() {
					tn, ok := scope.Lookup(name).(*types.TypeName)
					if !ok || tn.IsAlias() {
						continue
					}
					n := tn.Type().(*types.Named)
					id := string(symID(p.PkgPath + "." + name))
					if it, ok := n.Underlying().(*types.Interface); ok {
						if it.NumMethods() > 0 && it.IsMethodSet() {
							ifaces = append(ifaces, named{id, n})
						}
						continue
					}
					concrete = append(concrete, named{id, n})
				}
			}
			var want, got []string
			for _, c := range concrete {
				for _, i := range ifaces {
					if types.Implements(types.NewPointer(instantiate(t, c.t)), instantiate(t, i.t).Underlying().(*types.Interface)) {
						want = append(want, c.id+" -> "+i.id)
					}
				}
			}
			// Interfaces satisfying other interfaces.
			for _, a := range ifaces {
				for _, i := range ifaces {
					if a.id != i.id && types.Implements(instantiate(t, a.t), instantiate(t, i.t).Underlying().(*types.Interface)) {
						want = append(want, a.id+" -> "+i.id)
					}
				}
			}
			_, _, extSets := externalNodes(exts)
			for _, e := range implementsEdges(append(sets, extSets...)) {
				got = append(got, string(e.From)+" -> "+string(e.To))
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("implements (-types.Implements +fingerprints):\n%s", diff)
			}
			if repo == "extiface" && len(extSeen) < 5 {
				t.Errorf("only %d external interfaces: the sample exercises too little", len(extSeen))
			}
			if repo == "iface" && len(want) < 5 {
				t.Errorf("only %d implements pairs: the sample exercises too little", len(want))
			}
		})
	}
}

// TestMethodSetsRoundTrip checks that stored fingerprints decode to what
// was encoded.
func TestMethodSetsRoundTrip(t *testing.T) {
	in := []methodSet{
		{id: "go:p.T", lines: []string{"Get () (int)", "p.set (int)"}},
		{id: "go:p.I", iface: true, lines: []string{"Get () (int)"}},
	}
	out := decodeMethodSets("p", encodeMethodSets("p", in))
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(methodSet{})); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	ext := []extIface{
		{qname: "io.Writer", lines: []string{"Write ([]byte) (int, error)"}, sigs: []string{"Write(p []byte) (n int, err error)"}, explicit: []string{"Write"}},
		{qname: "io.ReadWriter", lines: []string{"Read ([]byte) (int, error)", "Write ([]byte) (int, error)"}, sigs: []string{"Read(p []byte) (n int, err error)", "Write(p []byte) (n int, err error)"}},
	}
	if diff := cmp.Diff(ext, decodeExternals(encodeExternals(ext)), cmp.AllowUnexported(extIface{})); diff != "" {
		t.Errorf("external round trip (-in +out):\n%s", diff)
	}
}

func cfgEnv() []string { return os.Environ() }

// instantiate returns n itself when it is not generic, else n instantiated
// with the distinct types A0, A1… (no constraint check: the indexer's
// positional correspondence is what is compared).
func instantiate(t *testing.T, n *types.Named) types.Type {
	tps := n.TypeParams()
	if tps.Len() == 0 {
		return n
	}
	args := make([]types.Type, tps.Len())
	for i := range args {
		args[i] = posArgs[i]
	}
	inst, err := types.Instantiate(nil, n, args, false)
	if err != nil {
		t.Fatalf("instantiate %s: %v", n, err)
	}
	return inst
}

// posArgs are distinct named types standing for type arguments by position.
var posArgs = func() []types.Type {
	pkg := types.NewPackage("example.com/args", "args")
	var out []types.Type
	for i := range 8 {
		tn := types.NewTypeName(0, pkg, "A"+strconv.Itoa(i), nil)
		out = append(out, types.NewNamed(tn, types.Typ[types.Int], nil))
	}
	return out
}()
