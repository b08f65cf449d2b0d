//go:build cgo

package c

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/cinclude"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// indexer indexes C with tree-sitter (parse.go, body.go: facts;
// resolve.go, build.go: resolution and records).
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "c" }

func newParser() *sitter.Parser {
	return sitter.ParserFor("c", sitter.NewLanguage(tsc.Language()))
}

// stored is what a stored file's node holds.
type stored struct {
	facts   *facts
	surface string
	deps    []string
	refs    []string
	unres   bool
}

// parsed is one file parsed in this run.
type parsed struct {
	rel   string
	facts *facts
	prob  string // what kept it from being parsed
}

// Index parses the changed files for their facts, takes the other
// files' facts from their stored file nodes, and resolves the changed
// files and their dependents against all of them.
//
// DESIGN: a C file's resolution reads (1) the files its includes reach
// (their macros, static functions, types) and (2) the repository's
// functions with external linkage and its initializers' field
// assignments, by name. The file node keeps both: c.deps lists (1), c.refs
// the names of (2) it looked up. A stored file is a dependent when a file
// of its c.deps changed its surface (c.surface: everything but the bodies
// of its external functions) or was deleted, when one of its c.refs was
// added or removed anywhere (facts.keys of the changed and deleted files,
// before and after), or, when files were added or deleted, when one of
// its quoted includes did not resolve (c.unres). Facts are stored, so a
// dependent is re-resolved without being parsed again. A change to the
// build files (their include directories) resolves every file again.
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	cfgChanged := j.Stored[cfgOwner].Hash != j.ConfigHash
	if !j.Full && len(j.Deleted) == 0 && len(j.Changed) == 0 && !cfgChanged {
		return d, nil
	}
	t0 := time.Now()
	parse := map[string]bool{}
	for rel := range j.Files {
		if j.Full || j.Changed[rel] {
			parse[rel] = true
		}
	}
	old := map[string]*stored{}
	if !j.Full {
		var err error
		if old, err = p.loadStored(ctx, j, parse); err != nil {
			return d, err
		}
	}
	d.Phases["c.load"] = int64(time.Since(t0))
	t0 = time.Now()
	rels := frontend.SortedKeys(parse)
	files, err := frontend.ParseEach(ctx, j, rels, 0, len(rels), newParser, (*sitter.Parser).Close,
		func(ps *sitter.Parser, rel string) *parsed { return p.parseFile(ctx, j, ps, rel) })
	if err != nil {
		return d, err
	}
	all := map[string]*facts{}
	for rel, st := range old {
		if !j.Deleted[rel] && !parse[rel] {
			all[rel] = st.facts
		}
	}
	probs := map[string]string{}
	for _, f := range files {
		all[f.rel] = f.facts
		probs[f.rel] = f.prob
	}
	d.Phases["c.parse"] = int64(time.Since(t0))
	t0 = time.Now()
	dirs, _ := cinclude.Dirs(j.Root, j.Configs, j.Read, frontend.SortedKeys(j.Files))
	tab := newTable(all, cinclude.NewResolver(frontend.SortedKeys(j.Files), dirs))
	resolve := rels
	if j.Full || cfgChanged {
		resolve = frontend.SortedKeys(all)
	} else {
		more := dependents(j, old, files)
		resolve = append(append([]string(nil), rels...), more...)
		sort.Strings(resolve)
		p.log.Debug("c incremental", "parsed", len(rels), "dependents", len(more))
	}
	var rewrite []string
	for _, rel := range resolve {
		if _, ok := j.Stored[rel]; ok {
			rewrite = append(rewrite, rel)
		}
	}
	if err := j.Rewrite(rewrite); err != nil {
		return d, err
	}
	for _, rel := range resolve {
		f := all[rel]
		if f == nil {
			continue
		}
		rec := graphdb.FileRecord{Path: rel, Language: "c", Size: j.Files[rel].Size, Hash: j.Files[rel].Hash}
		res := build(rel, rec, f, tab)
		if probs[rel] != "" {
			res.Rec.Errors = append(res.Rec.Errors, probs[rel])
		}
		emit(res)
	}
	d.Global = append(d.Global, frontend.FileResult{Rec: graphdb.FileRecord{Path: cfgOwner, Hash: j.ConfigHash, Language: "c"}})
	d.Phases["c.resolve"] = int64(time.Since(t0))
	d.Units = len(resolve)
	return d, ctx.Err()
}

// parseFile reads, parses and extracts one file within the job's
// budgets, reporting its syntax errors; nil when it vanished or the run
// was cancelled. A file a budget kept from being parsed has no facts.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, ps *sitter.Parser, rel string) *parsed {
	var guards map[int][]string
	pf := sitter.ParseBudgeted(ctx, j, rel, "", sitter.BudgetUse{Report: true, Depth: true}, func(data []byte) (*sitter.Tree, []byte, error) {
		text, g := blank(data, ppKeepAll)
		guards = g
		t, err := sitter.ParseLimited(ctx, ps, text, j.Budget.Timeout)
		if err != nil || !t.RootNode().HasError() {
			return t, text, err
		}
		// Still broken: keep the first branch of each conditional.
		first, g2 := blank(data, ppFirstOnly)
		t2, err := sitter.ParseLimited(ctx, ps, first, j.Budget.Timeout)
		if err != nil {
			return t, text, nil
		}
		if errorBytes(t2.RootNode()) < errorBytes(t.RootNode()) {
			t.Close()
			guards = g2
			return t2, first, nil
		}
		t2.Close()
		return t, text, nil
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	f := extract(pf.Text, pf.Root(), guards)
	for _, e := range f.Errors {
		pos, msg, _ := cutPos(e)
		j.Diag(frontend.Diagnostic{Pos: rel + ":" + pos, Msg: msg})
	}
	return &parsed{rel: rel, facts: f, prob: pf.Problem}
}

// cutPos splits "line:col: msg".
func cutPos(e string) (pos, msg string, ok bool) {
	for i := 0; i+1 < len(e); i++ {
		if e[i] == ':' && e[i+1] == ' ' {
			return e[:i], e[i+2:], true
		}
	}
	return "", e, false
}

// loadStored decodes the stored facts of the files on disk and of the
// deleted ones; a file whose node is missing or unreadable is parsed.
func (p *indexer) loadStored(ctx context.Context, j *frontend.Job, parse map[string]bool) (map[string]*stored, error) {
	out := map[string]*stored{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(j.Workers, 1))
	rels := frontend.SortedKeys(j.Files)
	for rel := range j.Deleted {
		rels = append(rels, rel)
	}
	for _, rel := range rels {
		if _, ok := j.Stored[rel]; !ok {
			continue
		}
		g.Go(func() error {
			n, err := j.Reader.Node(gctx, frontend.FileID(rel))
			var st *stored
			if err == nil {
				if f, ok := decodeFacts(n.Attrs[attrFacts]); ok {
					st = &stored{facts: f, surface: n.Attrs[attrSurface], deps: frontend.SplitLines(n.Attrs[attrDeps]),
						refs: frontend.SplitLines(n.Attrs[attrRefs]), unres: n.Attrs[attrUnres] == "1"}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case st != nil:
				out[rel] = st
			case !j.Deleted[rel]:
				parse[rel] = true
			}
			return gctx.Err()
		})
	}
	return out, g.Wait()
}

// dependents lists the stored files to resolve again after files were
// parsed (see Index).
func dependents(j *frontend.Job, old map[string]*stored, files []*parsed) []string {
	changed, keys := map[string]bool{}, map[string]bool{}
	added := len(j.Deleted) > 0
	for rel := range j.Deleted {
		changed[rel] = true
		if st := old[rel]; st != nil {
			for _, k := range st.facts.keys() {
				keys[refKey(k)] = true
			}
		}
	}
	parsedSet := map[string]bool{}
	for _, f := range files {
		parsedSet[f.rel] = true
		st := old[f.rel]
		if st == nil {
			added = true
			changed[f.rel] = true
			for _, k := range f.facts.keys() {
				keys[refKey(k)] = true
			}
			continue
		}
		if st.surface != f.facts.surface() {
			changed[f.rel] = true
		}
		before, after := map[string]bool{}, map[string]bool{}
		for _, k := range st.facts.keys() {
			before[k] = true
		}
		for _, k := range f.facts.keys() {
			after[k] = true
			if !before[k] {
				keys[refKey(k)] = true
			}
		}
		for k := range before {
			if !after[k] {
				keys[refKey(k)] = true
			}
		}
	}
	var out []string
	for rel, st := range old {
		if parsedSet[rel] || j.Deleted[rel] {
			continue
		}
		dep := added && st.unres
		for _, d := range st.deps {
			dep = dep || changed[d]
		}
		for _, r := range st.refs {
			dep = dep || keys[r]
		}
		if dep {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// errorBytes measures how much of a tree tree-sitter could not parse:
// the bytes under its error nodes.
func errorBytes(root *sitter.Node) uint {
	var n uint
	stack := []*sitter.Node{root}
	for len(stack) > 0 {
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case nd.IsError():
			n += nd.EndByte() - nd.StartByte()
		case nd.IsMissing():
			n++
		case nd.HasError():
			stack = append(stack, sitter.Children(nd)...)
		}
	}
	return n
}
