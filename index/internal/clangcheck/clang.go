package clangcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/index/internal/cinclude"
)

// Options says what to run clang on.
type Options struct {
	Root     string             // the repository (targets outside it are dropped)
	Clang    string             // the clang binary ("clang" on PATH when empty)
	Commands []cinclude.Command // the translation units, from a compilation database
	Workers  int                // clang processes at once (1 when 0)
	Extra    []string           // arguments added to every command (-Wno-…)
}

// Func is a function as clang declares it.
type Func struct {
	File  string // repository-relative, slash-separated
	Line  int    // the line of its name
	Start int    // the first line of its declaration (return type, template header)
	Name  string // the unqualified name
	Kind  string // clang's declaration kind: FunctionDecl, CXXMethodDecl, …
}

func (f Func) String() string { return fmt.Sprintf("%s:%d:%s", f.File, f.Line, f.Name) }

// Edge is one call whose caller and callee lie in the repository.
type Edge struct {
	Caller Func // the enclosing function's definition
	// Callee is the callee's definition when a translation unit defines
	// it (internal linkage: its own; else any, by mangled name), else its
	// first declaration in the repository.
	Callee Func
	Decls  []Func // every declaration of the callee in the repository, the definition included
	File   string // the call site
	Line   int
}

// Site is a call site.
type Site struct {
	File string
	Line int
}

// Truth is clang's resolution of a repository's calls.
type Truth struct {
	Edges []Edge // sorted by caller, site, callee
	// Indirect are the call sites inside the repository's functions whose
	// callee is a pointer (a variable, a parameter, a struct field):
	// clang names no function there.
	Indirect []Site
	Defs     []Func   // the function definitions in the repository
	Errors   []string // per translation unit: clang failed or wrote no AST
}

// Run runs clang on every command and resolves every call. A
// translation unit clang cannot dump is reported in Truth.Errors and the
// others go on; Run fails only when none can be read.
func Run(ctx context.Context, o Options) (*Truth, error) {
	root, err := filepath.EvalSymlinks(o.Root)
	if err != nil {
		return nil, fmt.Errorf("clang check root: %w", err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, fmt.Errorf("clang check root: %w", err)
	}
	bin := o.Clang
	if bin == "" {
		bin = "clang"
	}
	if bin, err = exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("find clang (Debian's clang package): %w", err)
	}
	m := &merger{root: root, lines: map[string][]int{}, defs: map[string][]Func{}}
	results := make([]*tuResult, len(o.Commands))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Workers, 1))
	for i, c := range o.Commands {
		g.Go(func() error {
			u, err := runTU(gctx, bin, c, o.Extra)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				results[i] = &tuResult{err: fmt.Sprintf("%s: %v", c.File, err)}
				return nil
			}
			results[i] = m.collect(u, c.Directory)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return m.finish(results)
}

// runTU runs clang on one command and gathers its declarations and calls.
func runTU(ctx context.Context, bin string, c cinclude.Command, extra []string) (*tu, error) {
	args := clangArgs(c, extra)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.Directory
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start clang: %w", err)
	}
	u := newTU()
	derr := decodeTU(out, func(n *jnode) error {
		u.visit(n, scope{})
		return nil
	})
	werr := cmd.Wait()
	if derr != nil {
		if werr != nil {
			return nil, fmt.Errorf("clang: %v: %s", werr, firstLines(stderr.String(), 3))
		}
		return nil, derr
	}
	return u, nil // clang exits 1 on errors it recovered from: the AST is still whole
}

// clangArgs turns a compile command into a syntax-only AST dump: the
// compiler replaced, outputs and dependency files dropped.
func clangArgs(c cinclude.Command, extra []string) []string {
	var args []string
	a := c.Arguments
	for i := 1; i < len(a); i++ {
		switch {
		case a[i] == "-o" || a[i] == "-MF" || a[i] == "-MT" || a[i] == "-MQ":
			i++
		case a[i] == "-c" || a[i] == "-MD" || a[i] == "-MMD" || a[i] == "-M" || a[i] == "-MM" || a[i] == "-MP",
			strings.HasPrefix(a[i], "-o") && len(a[i]) > 2 && !strings.HasPrefix(a[i], "-obj"):
		default:
			args = append(args, a[i])
		}
	}
	args = append(args, "-fsyntax-only", "-w", "-Wno-unknown-warning-option", "-Qunused-arguments", "-ferror-limit=0")
	args = append(args, extra...)
	return append(args, "-Xclang", "-ast-dump=json")
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	return strings.Join(ls[:min(len(ls), n)], "; ")
}

// merger turns translation units into repository facts.
type merger struct {
	root  string
	mu    sync.Mutex
	lines map[string][]int  // line starts of repository files, by rel
	defs  map[string][]Func // external definitions by mangled name
}

// tuResult is one translation unit, its positions resolved.
type tuResult struct {
	err      string
	edges    []Edge
	open     []openEdge // callees with no definition in the unit
	indirect []Site
	defs     []Func
}

// openEdge is an edge whose callee the unit only declares.
type openEdge struct {
	Edge
	mangled string
}

// rel returns p's file relative to the root, "" outside it.
func (m *merger) rel(p pos, dir string) string {
	if !p.valid() {
		return ""
	}
	f := p.file
	if !filepath.IsAbs(f) {
		f = filepath.Join(dir, f)
	}
	r, err := filepath.Rel(m.root, filepath.Clean(f))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(r)
}

// line returns the 1-based line of offset in the repository file rel.
func (m *merger) line(rel string, offset int) int {
	m.mu.Lock()
	starts, ok := m.lines[rel]
	if !ok {
		data, _ := os.ReadFile(filepath.Join(m.root, filepath.FromSlash(rel)))
		starts = []int{0}
		for i, c := range data {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		m.lines[rel] = starts
	}
	m.mu.Unlock()
	return sort.Search(len(starts), func(i int) bool { return starts[i] > offset })
}

// fn resolves a declaration; ok is false outside the repository.
func (m *merger) fn(d *decl, dir string) (Func, bool) {
	rel := m.rel(d.loc, dir)
	if rel == "" {
		return Func{}, false
	}
	f := Func{File: rel, Line: m.line(rel, d.loc.offset), Name: d.name, Kind: d.kind}
	f.Start = f.Line
	if b := m.rel(d.begin, dir); b == rel {
		f.Start = min(m.line(rel, d.begin.offset), f.Line)
	}
	return f, true
}
