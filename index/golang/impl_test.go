package golang

import (
	"go/types"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/index/internal/implsearch"
	"github.com/relayhq/relay/index/internal/indextest"
)

// TestImplementsMatchesGoTypes checks the fingerprint-based implements
// edges against types.Implements over every (concrete named type,
// interface) and (interface, other interface) pair of each sample
// repository, the interfaces declared outside the repository that it
// references included. Generic types are compared as the indexer defines
// them: a generic type G instantiated with distinct arguments (G[A0, A1]),
// against every instantiation of a generic interface I whose
// unconstrained arguments are types found in G's method signatures and
// whose constrained ones are the arguments at the same position
// (implsearch.ImplementsSome), by brute force rather than by the indexer's matching.
func TestImplementsMatchesGoTypes(t *testing.T) {
	repos := []string{"extiface", "iface", "embedding", "generics", "genimpl", "geninst", "calls", "tests", "../internal/callcheck/testdata/sample.txtar"}
	for _, repo := range repos {
		t.Run(repo, func(t *testing.T) {
			t.Parallel()
			root := indextest.ExtractTxtar(t, repo)
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
				x := &extractor{fset: p.Fset, pkg: p.Types, info: p.TypesInfo, inRepo: func(s string) bool { return inRepo[s] }}
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
					if implsearch.ImplementsSome(types.NewPointer(instantiate(t, c.t)), i.t) {
						want = append(want, c.id+" -> "+i.id)
					}
				}
			}
			// Interfaces satisfying other interfaces.
			for _, a := range ifaces {
				for _, i := range ifaces {
					if a.id != i.id && implsearch.ImplementsSome(instantiate(t, a.t), i.t) {
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
		{id: "go:p.T", lines: []string{"Get () (int)", "p.set (int)"}, ptr: "p.set"},
		{id: "go:p.V", lines: []string{"Get () (int)"}},
		{id: "go:p.G", iface: true, lines: []string{"Push ($0)", "Key () ($1)"}, free: "ac"},
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

// instantiate is implsearch.Instantiate, failing the test on an error.
func instantiate(t *testing.T, n *types.Named) types.Type {
	t.Helper()
	typ, err := implsearch.Instantiate(n)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}
