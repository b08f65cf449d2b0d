// Package callcheck measures the accuracy of the indexer's static call
// edges against golang.org/x/tools/go/callgraph/static, both computed from
// the same go/packages load: the indexer's extraction through
// golang.ExtractCalls, the reference through SSA (ssautil.AllPackages,
// generic bodies not instantiated, so calls of instantiations name the
// generic function as the indexer does).
//
// Calls in package-level variable initialisers are compared: static puts
// them in the synthetic package initialiser (and its closures), the indexer
// in one synthetic caller per file (golang.VarInitID), so static's caller is
// mapped to the synthetic caller of the file holding the call site.
//
// The two graphs model different things at the edges, so some edges are
// left out of the comparison and counted by reason in Report.Excluded:
//   - static's edges from other synthetic functions (wrappers for promoted
//     and pointer methods, bound-method and thunk closures), and the package
//     initialiser's calls of init functions and of imported packages'
//     initialisers: the indexer has no such nodes or edges;
//   - static's edges to anonymous functions (closures called in place, by
//     go or defer): the indexer attributes a closure's calls to the
//     enclosing declaration instead, and those calls are compared;
//   - static's edges to methods of local types (no node in the graph);
//   - edges from init functions on both sides (ids differ by design; the
//     variable-initialiser callers are not init functions);
//   - the indexer's edges to interface methods (dynamic dispatch: static
//     records none) and its references edges (a function, method value or
//     method expression used as a value and not called there: static has
//     no such edge, and sees method values only inside the synthetic
//     wrappers above).
//
// static.CallGraph reaches closures only through static calls, so closures
// that are only passed as values (sort.Slice callbacks, handlers) are
// absent from it, and so are methods of generic types; Compare adds the
// static calls of those functions, by static's own definition
// (CallCommon.StaticCallee), to the reference.
//
// Known remaining differences: a local bound once to a declared function
// and never reassigned (q := strconv.Quote; q(s)) is a static call for both,
// but inside a closure SSA sees a captured free variable (dynamic) while
// the indexer still resolves it; on GOROOT/src with tests these are the
// only extra edges (precision 0.9997, recall 1.0000).
//
// What remains is compared as (caller, callee, file, line) sets.
//
// With Options.Implements the implements edges are compared too, with
// go/types as the reference (CompareImplements): every (named type,
// interface) pair, generic interfaces through their instantiations.
package callcheck

import (
	"context"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/golang"
)

// Options selects what to compare.
type Options struct {
	Root     string   // repository root; call sites are relative to it
	Dir      string   // where go list runs (default Root)
	Patterns []string // default "./..."
	Tests    bool     // include test packages
	Env      []string // added to the environment of go list
	Keep     int      // how many differing edges to keep in the report (default 50)
	// Implements also compares the implements edges with go/types
	// (CompareImplements) into Report.Implements.
	Implements bool
}

// Report is the outcome of Compare.
type Report struct {
	Packages   int
	LoadErrors int
	// Tally compares the indexer's edges (Ours) with static's (Theirs);
	// Extra are indexer edges static lacks, Missing static edges the
	// indexer lacks.
	Tally
	VarInits int // indexer edges from variable-initialiser callers compared
	Excluded map[string]int
	// ClosuresAdded counts closures static.CallGraph does not reach (only
	// passed as values) whose static calls were added to the reference.
	ClosuresAdded int
	// GenericMethodsAdded counts methods of generic types (absent from
	// static.CallGraph) whose static calls were added to the reference.
	GenericMethodsAdded int
	// Implements is the comparison of implements edges (Options.Implements).
	Implements *ImplReport
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "packages=%d load_errors=%d ours=%d static=%d matched=%d precision=%.4f recall=%.4f var_inits=%d closures_added=%d generic_methods_added=%d\n",
		r.Packages, r.LoadErrors, r.Ours, r.Theirs, r.Matched, r.Precision, r.Recall, r.VarInits, r.ClosuresAdded, r.GenericMethodsAdded)
	var keys []string
	for k := range r.Excluded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "excluded %-40s %d\n", k, r.Excluded[k])
	}
	for _, e := range r.Extra {
		fmt.Fprintf(&b, "extra   %s\n", e)
	}
	for _, e := range r.Missing {
		fmt.Fprintf(&b, "missing %s\n", e)
	}
	if r.Implements != nil {
		b.WriteString(r.Implements.String())
		for _, e := range r.Implements.Extra {
			fmt.Fprintf(&b, "implements extra   %s\n", e)
		}
		for _, e := range r.Implements.Missing {
			fmt.Fprintf(&b, "implements missing %s\n", e)
		}
	}
	return b.String()
}

// Compare loads the packages, extracts both call graphs and compares them.
func Compare(ctx context.Context, opts Options) (Report, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return Report{}, err
	}
	keep := opts.Keep
	if keep == 0 {
		keep = 50
	}
	pkgs, err := load(ctx, root, opts)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Packages: len(pkgs), Excluded: map[string]int{}}
	packages.Visit(pkgs, nil, func(p *packages.Package) { rep.LoadErrors += len(p.Errors) })
	inRepo := map[string]bool{}
	for _, p := range pkgs {
		inRepo[p.PkgPath] = true
	}
	ours := rep.ours(root, pkgs)
	theirs := rep.theirs(root, pkgs, inRepo)
	rep.Tally = tally(ours, theirs, keep)
	if opts.Implements {
		impl := CompareImplements(root, pkgs, keep)
		rep.Implements = &impl
	}
	return rep, nil
}

// load lists and type-checks the packages with syntax, as both sides need.
func load(ctx context.Context, root string, opts Options) ([]*packages.Package, error) {
	dir := opts.Dir
	if dir == "" {
		dir = root
	}
	pats := opts.Patterns
	if len(pats) == 0 {
		pats = []string{"./..."}
	}
	cfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir: dir, Tests: opts.Tests,
	}
	if len(opts.Env) > 0 {
		cfg.Env = append(os.Environ(), opts.Env...)
	}
	pkgs, err := packages.Load(cfg, pats...)
	if err != nil {
		return nil, fmt.Errorf("load packages: %w", err)
	}
	return pkgs, nil
}

// ours returns the indexer's compared edges as keys, counting the
// excluded ones.
func (rep *Report) ours(root string, pkgs []*packages.Package) map[string]bool {
	ours := map[string]bool{}
	for _, e := range golang.ExtractCalls(root, pkgs) {
		switch {
		case isInit(string(e.From)):
			rep.Excluded["ours: caller is init or blank func"]++
		case e.Iface:
			rep.Excluded["ours: interface dispatch"]++
		case e.Ref:
			rep.Excluded["ours: references (function or method used as a value)"]++
		default:
			ours[key(string(e.From), string(e.To), e.File, e.Line)] = true
			if strings.HasSuffix(string(e.From), "#vars") {
				rep.VarInits++
			}
		}
	}
	return ours
}

// theirs returns static's compared edges as keys, counting the excluded
// ones, with the bodies static.CallGraph does not reach added.
func (rep *Report) theirs(root string, pkgs []*packages.Package, inRepo map[string]bool) map[string]bool {
	prog, _ := ssautil.AllPackages(pkgs, 0)
	prog.Build()
	theirs := map[string]bool{}
	add := func(caller, callee *ssa.Function, site ssa.CallInstruction) {
		k, reason := staticKey(prog, root, inRepo, caller, callee, site)
		if reason != "" {
			rep.Excluded[reason]++
			return
		}
		theirs[k] = true
	}
	cg := static.CallGraph(prog)
	inGraph := map[*ssa.Function]bool{}
	for fn, node := range cg.Nodes {
		if fn == nil {
			continue
		}
		inGraph[fn] = true
		for _, e := range node.Out {
			add(e.Caller.Func, e.Callee.Func, e.Site)
		}
	}
	rep.addUnreached(prog, inRepo, inGraph, add)
	return theirs
}

// addUnreached adds to the reference the static calls of the functions
// static.CallGraph does not reach. It reaches closures only through static
// calls; a closure passed as a value (sort.Slice, callbacks, go statements
// of function values) is missing with its calls. Add the static calls
// (StaticCallee, static's own definition) of every such closure. Methods
// of generic types are not in static.CallGraph either (it starts from
// non-parameterized types); their generic bodies are added the same way.
func (rep *Report) addUnreached(prog *ssa.Program, inRepo map[string]bool, inGraph map[*ssa.Function]bool, add func(caller, callee *ssa.Function, site ssa.CallInstruction)) {
	addBody := func(fn *ssa.Function) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if site, ok := instr.(ssa.CallInstruction); ok {
					if g := site.Common().StaticCallee(); g != nil {
						add(fn, g, site)
					}
				}
			}
		}
	}
	var anon func(fn *ssa.Function)
	anon = func(fn *ssa.Function) {
		for _, a := range fn.AnonFuncs {
			if !inGraph[a] {
				inGraph[a] = true
				rep.ClosuresAdded++
				addBody(a)
			}
			anon(a)
		}
	}
	var fns []*ssa.Function
	for fn := range ssautil.AllFunctions(prog) {
		fns = append(fns, fn)
	}
	for _, pkg := range prog.AllPackages() {
		if !inRepo[pkg.Pkg.Path()] {
			continue
		}
		for _, mem := range pkg.Members {
			t, ok := mem.(*ssa.Type)
			if !ok {
				continue
			}
			named, ok := t.Type().(*types.Named)
			if !ok || named.TypeParams() == nil || types.IsInterface(named) {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				if fn := prog.FuncValue(named.Method(i)); fn != nil && !inGraph[fn] {
					inGraph[fn] = true
					rep.GenericMethodsAdded++
					addBody(fn)
					fns = append(fns, fn)
				}
			}
		}
	}
	for _, fn := range fns {
		anon(fn)
	}
}

// Tally is the comparison of two edge sets, each edge a key: ours (the
// indexer's) and theirs (the reference's).
type Tally struct {
	Ours, Theirs      int // edges compared on each side
	Matched           int
	Precision, Recall float64  // Matched / Ours, Matched / Theirs
	Extra, Missing    []string // ours only, theirs only: the first Keep, sorted
}

// tally compares ours with theirs, keeping the first keep differences of
// each side.
func tally(ours, theirs map[string]bool, keep int) Tally {
	t := Tally{Ours: len(ours), Theirs: len(theirs)}
	var extra, missing []string
	for k := range ours {
		if theirs[k] {
			t.Matched++
		} else {
			extra = append(extra, k)
		}
	}
	for k := range theirs {
		if !ours[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	t.Extra = extra[:min(len(extra), keep)]
	t.Missing = missing[:min(len(missing), keep)]
	if t.Ours > 0 {
		t.Precision = float64(t.Matched) / float64(t.Ours)
	}
	if t.Theirs > 0 {
		t.Recall = float64(t.Matched) / float64(t.Theirs)
	}
	return t
}

func key(from, to, file string, line int) string {
	return fmt.Sprintf("%s -> %s @%s:%d", from, to, file, line)
}

// isInit reports whether id is an init or blank function's; the synthetic
// caller of a file's variable initialisers (".init#<file>#vars") is not.
func isInit(id string) bool {
	return (strings.Contains(id, ".init#") && !strings.HasSuffix(id, "#vars")) || strings.Contains(id, "._#")
}

// staticKey maps one static edge into the indexer's id space, or gives the
// reason it is not compared.
func staticKey(prog *ssa.Program, root string, inRepo map[string]bool, caller, callee *ssa.Function, site ssa.CallInstruction) (string, string) {
	if site == nil {
		return "", "static: no call site"
	}
	top := caller
	for top.Parent() != nil {
		top = top.Parent()
	}
	if top.Pkg == nil || !inRepo[top.Pkg.Pkg.Path()] {
		return "", "static: caller outside the packages"
	}
	varInit := syntheticKind(top.Synthetic) == "package initializer"
	if top.Synthetic != "" && !varInit {
		return "", "static: synthetic caller (" + syntheticKind(top.Synthetic) + ")"
	}
	if varInit && callee.Synthetic == "" && callee.Parent() == nil && callee.Pkg == top.Pkg && strings.HasPrefix(callee.Name(), "init#") {
		return "", "static: package initializer calls init func"
	}
	if callee.Parent() != nil {
		return "", "static: callee is a closure"
	}
	if callee.Synthetic != "" {
		if o := callee.Origin(); o != nil {
			callee = o
		} else {
			return "", "static: synthetic callee (" + syntheticKind(callee.Synthetic) + ")"
		}
	}
	if o := callee.Origin(); o != nil {
		callee = o
	}
	if callee.Pkg == nil || !inRepo[callee.Pkg.Pkg.Path()] {
		return "", "static: callee outside the packages"
	}
	pos := prog.Fset.PositionFor(site.Pos(), false)
	rel, err := filepath.Rel(root, pos.Filename)
	if err != nil || strings.HasPrefix(rel, "..") || !pos.IsValid() {
		return "", "static: call site outside the root (cgo, generated)"
	}
	rel = filepath.ToSlash(rel)
	var from graphdb.NodeID
	if varInit {
		// The indexer's caller for a variable initialiser is the synthetic
		// function of the file holding the call.
		from = golang.VarInitID(top.Pkg.Pkg.Path(), rel)
	} else {
		cfn, ok := top.Object().(*types.Func)
		if !ok {
			return "", "static: caller without object"
		}
		if from, ok = golang.FuncID(cfn); !ok {
			return "", "static: caller is init or local"
		}
	}
	tfn, ok := callee.Object().(*types.Func)
	if !ok {
		return "", "static: callee without object"
	}
	to, ok := golang.FuncID(tfn)
	if !ok {
		return "", "static: callee is a method of a local type"
	}
	return key(string(from), string(to), rel, pos.Line), ""
}

func syntheticKind(s string) string {
	switch {
	case strings.HasPrefix(s, "package initializer"):
		return "package initializer"
	case strings.HasPrefix(s, "wrapper"):
		return "wrapper"
	case strings.HasPrefix(s, "bound"):
		return "bound method closure"
	case strings.HasPrefix(s, "thunk"):
		return "method expression thunk"
	case strings.HasPrefix(s, "instantiation"):
		return "instantiation"
	}
	if i := strings.IndexByte(s, ' '); i > 0 {
		return s[:i]
	}
	return s
}
