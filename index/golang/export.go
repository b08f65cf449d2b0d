package golang

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/golang/internal/goshim"
)

// FuncLocName is the part after "path/file.go:" of the location name the
// indexer gives a function declaration, read from syntax alone: "Func" or
// "Recv.Method" (receiver pointers, parentheses and type arguments
// stripped). Tools that name functions without indexing (relay eval
// derive) use it so their names match the graph's.
func FuncLocName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	if recv := receiverName(fd.Recv.List[0].Type); recv != "" {
		return recv + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// CallEdge is one call edge as the indexer extracts it.
type CallEdge struct {
	From, To graphdb.NodeID
	File     string // repo-relative call site
	Line     int
	Ref      bool // a method value or method expression that is not called at the site
	Iface    bool // the callee is an interface method: dynamic dispatch
}

// ExtractCalls runs the indexer's call extraction over packages the caller
// loaded with go/packages (NeedName|NeedFiles|NeedSyntax|NeedTypes|
// NeedTypesInfo, Tests as wanted), and returns the sorted call edges. It is
// exported for tools that compare the indexer with other call graphs built
// from the same load (index/internal/callcheck). Packages are chosen as Run
// chooses them: a test variant replaces its plain package, generated test
// mains are skipped, files outside root are ignored. Every package passed
// counts as part of the repository.
func ExtractCalls(root string, pkgs []*packages.Package) []CallEdge {
	var out []CallEdge
	eachExtracted(root, pkgs, func(_ *packages.Package, x *extractor) {
		for _, c := range x.calls {
			out = append(out, CallEdge{From: c.edge.From, To: c.edge.To, File: c.edge.File, Line: c.edge.Line, Ref: c.ref, Iface: c.iface})
		}
	})
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return out
}

// eachExtracted runs the indexer's extraction over each package of pkgs as
// Run chooses them (a test variant replaces its plain package, generated
// test mains are skipped, files outside root are ignored; every package
// passed counts as part of the repository) and hands each extractor to fn.
func eachExtracted(root string, pkgs []*packages.Package, fn func(*packages.Package, *extractor)) {
	root, _ = filepath.Abs(root)
	inRepo := map[string]bool{}
	variant := map[string]bool{}
	for _, p := range pkgs {
		inRepo[p.PkgPath] = true
		if p.ID == p.PkgPath+" ["+p.PkgPath+".test]" {
			variant[p.PkgPath] = true
		}
	}
	for _, p := range pkgs {
		if (strings.HasSuffix(p.ID, ".test") && !strings.Contains(p.ID, " [")) || (p.ID == p.PkgPath && variant[p.PkgPath]) {
			continue
		}
		if p.Types == nil || p.TypesInfo == nil {
			continue
		}
		var srcs []*srcFile
		for _, f := range p.Syntax {
			name := p.Fset.PositionFor(f.Pos(), false).Filename
			rel, err := filepath.Rel(root, name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			srcs = append(srcs, &srcFile{rel: filepath.ToSlash(rel), ast: f, test: strings.HasSuffix(rel, "_test.go")})
		}
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].rel < srcs[j].rel })
		x := &extractor{fset: p.Fset, pkg: p.Types, info: p.TypesInfo, inRepo: func(s string) bool { return inRepo[s] }}
		x.extract(srcs)
		fn(p, x)
	}
}

// VarInitID returns the id of the synthetic function that owns the calls
// in the package-level variable initialisers of file rel (repo-relative,
// slash-separated) of package pkgPath. It exists only when that file has
// such calls. Exported with ExtractCalls for comparisons.
func VarInitID(pkgPath, rel string) graphdb.NodeID {
	return graphdb.NodeID("go:" + pkgPath + ".init#" + rel + "#vars")
}

// FuncID returns the node id the indexer gives a declared function or
// method (of its generic origin), and false for objects that have no node:
// methods of local types or unnamed interfaces, init and blank functions,
// builtins' methods. Exported with ExtractCalls for comparisons.
func FuncID(fn *types.Func) (graphdb.NodeID, bool) {
	id, _, ok := funcTarget(fn)
	return id, ok
}

// RunGoShim must be called first in main by programs that run index.Run.
// When the process was started by index.Run as its stand-in for the go
// command, it supervises the real go command and exits with its status;
// otherwise it returns at once and lets later runs in this process start
// `go list` through the executable, so that go list and its children die
// with the process, even on SIGKILL (Linux only; see package
// index/golang/internal/goshim).
func RunGoShim() { goshim.Run() }
