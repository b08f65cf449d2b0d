package review

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// Depth selects how much review context to gather.
type Depth string

// Review depths.
const (
	DepthFast     Depth = "fast"     // changed symbols, direct callers, callees, blast radius
	DepthStandard Depth = "standard" // + callers two hops up
	DepthDeep     Depth = "deep"     // + semantic neighbours of the changed symbols
)

// ParseDepth validates a depth name; "" is standard.
func ParseDepth(s string) (Depth, error) {
	switch Depth(s) {
	case "":
		return DepthStandard, nil
	case DepthFast, DepthStandard, DepthDeep:
		return Depth(s), nil
	}
	return "", fmt.Errorf("unknown depth %q (want fast, standard or deep)", s)
}

// Options configure Build.
type Options struct {
	Depth Depth
	// Searcher finds semantic neighbours at DepthDeep; nil skips them (the
	// context says so).
	Searcher *retrieve.Searcher
	// Feedback holds past review comments; the closest accepted (5) and
	// rejected (3) ones are attached.
	Feedback []Feedback
}

// Context is what a reviewer (person or model) needs beside a diff.
type Context struct {
	Depth      Depth            `json:"depth"`
	Files      []File           `json:"files"`
	Changed    []ChangedSymbol  `json:"changed"`
	Callers    []RelatedSymbol  `json:"callers"`
	Callees    []RelatedSymbol  `json:"callees"`
	Blast      *BlastSummary    `json:"blast_radius,omitempty"`
	Neighbours []RelatedSymbol  `json:"neighbours,omitempty"`
	Helpful    []ScoredFeedback `json:"helpful_feedback,omitempty"`
	NotHelpful []ScoredFeedback `json:"unhelpful_feedback,omitempty"`
	Notes      []string         `json:"notes,omitempty"`
}

// File is one file of the diff.
type File struct {
	Path     string `json:"path"`
	OldPath  string `json:"old_path,omitempty"` // for renames
	Status   string `json:"status"`
	Language string `json:"language,omitempty"`
	Added    int    `json:"added"`
	Deleted  int    `json:"deleted"`
	Binary   bool   `json:"binary,omitempty"`
}

// ChangedSymbol is a symbol whose lines the diff touches.
type ChangedSymbol struct {
	retrieve.Ref
	ID     graphdb.NodeID `json:"id"`
	Change string         `json:"change"` // added, modified or deleted
	Lines  []int          `json:"lines"`  // touched lines (new side; old side for deletions)
}

// RelatedSymbol is a caller, callee or neighbour of the changed symbols.
type RelatedSymbol struct {
	retrieve.Ref
	Depth    int    `json:"depth"`              // hops from the changed symbol
	Of       string `json:"of"`                 // the changed symbol it relates to
	Relation string `json:"relation,omitempty"` // "calls", "called by", "similar"
}

// BlastSummary condenses graphdb.Blast for a review.
type BlastSummary struct {
	Risk       int      `json:"risk"`
	Direct     int      `json:"direct_callers"`
	Transitive int      `json:"transitive_callers"`
	Files      []string `json:"affected_files"`
	Tests      []string `json:"tests"`
	MaxDepth   int      `json:"max_depth"`
}

// mergeFiles folds the changes a diff lists more than once for the same
// file (concatenated patches, or one file repeated a thousand times) into
// one entry: the first one's header, every distinct hunk once.
func mergeFiles(diffs []udiff.FileDiff) []udiff.FileDiff {
	type hunkKey struct{ oldStart, oldLines, newStart, newLines int }
	at := map[string]int{}
	seen := map[string]map[hunkKey]bool{}
	var out []udiff.FileDiff
	for _, f := range diffs {
		p, hunks := f.Path(), f.Hunks
		i, ok := at[p]
		if !ok {
			i = len(out)
			at[p] = i
			seen[p] = map[hunkKey]bool{}
			f.Hunks = nil
			out = append(out, f)
		}
		out[i].Binary = out[i].Binary || f.Binary
		for _, h := range hunks {
			k := hunkKey{h.OldStart, h.OldLines, h.NewStart, h.NewLines}
			if !seen[p][k] {
				seen[p][k] = true
				out[i].Hunks = append(out[i].Hunks, h)
			}
		}
		if ok {
			slices.SortStableFunc(out[i].Hunks, func(a, b udiff.Hunk) int { return cmp.Or(a.NewStart-b.NewStart, a.OldStart-b.OldStart) })
		}
	}
	return out
}

// Build gathers review context for a parsed diff from the code graph.
// Changed symbols come from each hunk's line ranges: new-side lines for
// added and modified code, old-side lines for deleted code, matched against
// the symbols FindSymbols{File} returns. Then the blast radius
// (graphdb.BlastRadius; 2 hops at fast, 3 at standard, DefaultBlastDepth
// at deep), the callers listed from it (1 hop at fast, 2 at standard and
// deep), callees (1 hop), semantic neighbours (deep) and past feedback.
func Build(ctx context.Context, g graphdb.Reader, diffs []udiff.FileDiff, opts Options) (Context, error) {
	if opts.Depth == "" {
		opts.Depth = DepthStandard
	}
	g = newCachedReader(g)
	rc := Context{Depth: opts.Depth, Files: []File{}, Changed: []ChangedSymbol{}, Callers: []RelatedSymbol{}, Callees: []RelatedSymbol{}}
	// diffText is what past feedback is matched against: the changed
	// lines, the paths and the changed symbols' names.
	var diffText strings.Builder
	langs, err := rc.addFiles(ctx, g, mergeFiles(diffs), &diffText)
	if err != nil {
		return Context{}, err
	}
	listed := map[graphdb.NodeID]bool{}
	var ids []graphdb.NodeID
	for _, c := range rc.Changed {
		if !listed[c.ID] {
			listed[c.ID] = true
			ids = append(ids, c.ID)
		}
		diffText.WriteString(c.Name + "\n")
	}
	callerDepth, blastDepth := 2, 3
	switch opts.Depth {
	case DepthFast:
		callerDepth, blastDepth = 1, 2
	case DepthDeep:
		blastDepth = graphdb.DefaultBlastDepth
	}
	if len(ids) > 0 {
		if err := rc.addBlast(ctx, g, ids, listed, callerDepth, blastDepth); err != nil {
			return Context{}, err
		}
	}
	if err := rc.addCallees(ctx, g, listed); err != nil {
		return Context{}, err
	}
	sortRelated(rc.Callers)
	sortRelated(rc.Callees)
	if opts.Depth == DepthDeep {
		if opts.Searcher == nil {
			rc.Notes = append(rc.Notes, "semantic neighbours skipped: the repository has no retrieval index")
		} else if len(rc.Changed) > 0 {
			ns, err := neighbours(ctx, opts.Searcher, rc.Changed, listed)
			if err != nil {
				return Context{}, err
			}
			rc.Neighbours = ns
		}
	}
	if len(opts.Feedback) > 0 {
		rc.Helpful, rc.NotHelpful = SimilarFeedback(opts.Feedback, diffText.String(), langs, 5, 3)
	}
	return rc, nil
}

// addFiles lists the diff's files and the symbols their changed lines
// touch, writes the changed lines and paths to diffText, and returns the
// languages of the files.
func (rc *Context) addFiles(ctx context.Context, g graphdb.Reader, diffs []udiff.FileDiff, diffText *strings.Builder) ([]string, error) {
	byID := map[graphdb.NodeID]int{}
	var langs []string
	for _, f := range diffs {
		rf := File{Path: f.Path(), Status: f.Status, Binary: f.Binary}
		if f.Status == udiff.StatusRenamed {
			rf.OldPath = f.OldPath
		}
		rf.Language, _ = retrieve.LanguageOf(rf.Path)
		if rf.Language != "" && !slices.Contains(langs, rf.Language) {
			langs = append(langs, rf.Language)
		}
		var added, deleted []int
		for _, h := range f.Hunks {
			added = append(added, h.Added...)
			deleted = append(deleted, h.Deleted...)
			for _, l := range h.AddedText {
				diffText.WriteString(l + "\n")
			}
			for _, l := range h.DeletedText {
				diffText.WriteString(l + "\n")
			}
		}
		rf.Added, rf.Deleted = len(added), len(deleted)
		rc.Files = append(rc.Files, rf)
		diffText.WriteString(strings.TrimSuffix(rf.Path, path.Ext(rf.Path)) + "\n")
		if f.Binary {
			rc.Notes = append(rc.Notes, fmt.Sprintf("%s: binary file changed; no symbols", rf.Path))
			continue
		}
		found := 0
		if f.NewPath != "" && len(added) > 0 {
			n, err := changedIn(ctx, g, f.NewPath, added, f.Status == udiff.StatusAdded, "added", rc, byID)
			if err != nil {
				return nil, err
			}
			found += n
		}
		if f.OldPath != "" && len(deleted) > 0 {
			n, err := changedIn(ctx, g, f.OldPath, deleted, f.Status == udiff.StatusDeleted, "deleted", rc, byID)
			if err != nil {
				return nil, err
			}
			found += n
		}
		if found == 0 && len(added)+len(deleted) > 0 {
			rc.Notes = append(rc.Notes, fmt.Sprintf("%s: %d changed line(s) outside any indexed symbol", rf.Path, len(added)+len(deleted)))
		}
	}
	return langs, nil
}

// addBlast computes the blast radius of the changed symbols ids and lists
// the callers within callerDepth from it (one traversal serves both),
// each with the changed symbol it reaches; listed collects what is shown.
func (rc *Context) addBlast(ctx context.Context, g graphdb.Reader, ids []graphdb.NodeID, listed map[graphdb.NodeID]bool, callerDepth, blastDepth int) error {
	b, err := graphdb.BlastRadius(ctx, g, ids, blastDepth)
	if err != nil {
		return fmt.Errorf("blast radius: %w", err)
	}
	bs := &BlastSummary{Risk: b.Risk, Direct: len(b.Direct), Transitive: len(b.Transitive), Files: b.Files, Tests: []string{}, MaxDepth: b.MaxDepth}
	for _, t := range b.Tests {
		bs.Tests = append(bs.Tests, t.Node.Name)
	}
	rc.Blast = bs
	names := map[graphdb.NodeID]string{}
	for _, c := range rc.Changed {
		names[c.ID] = c.Name
	}
	via := map[graphdb.NodeID]graphdb.NodeID{}
	all := append(append([]graphdb.Result(nil), b.Direct...), b.Transitive...)
	for _, r := range all {
		via[r.Node.ID] = r.Via
	}
	// of follows Via links back to the changed symbol a caller reaches.
	of := func(id graphdb.NodeID) string {
		for range blastDepth + 1 {
			if n, ok := names[id]; ok {
				return n
			}
			id = via[id]
		}
		return ""
	}
	for _, r := range all {
		if r.Depth > callerDepth || listed[r.Node.ID] {
			continue
		}
		listed[r.Node.ID] = true
		rc.Callers = append(rc.Callers, RelatedSymbol{Ref: retrieve.RefOf(r.Node), Depth: r.Depth, Of: of(r.Via), Relation: r.Relation})
	}
	return nil
}

// addCallees lists what the changed (not deleted) symbols call, one hop,
// leaving out what is already listed.
func (rc *Context) addCallees(ctx context.Context, g graphdb.Reader, listed map[graphdb.NodeID]bool) error {
	for _, c := range rc.Changed {
		if c.Change == "deleted" {
			continue // what a deleted symbol called no longer matters
		}
		// Static callees only: the interface-dispatch fan-out that
		// graphdb.Query adds (every implementation of io.Writer.Write…)
		// is noise in a review prompt and costs most of the time.
		hops, err := graphdb.Traverse(ctx, g, c.ID, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 1, 0)
		if err != nil {
			return fmt.Errorf("callees of %s: %w", c.QName, err)
		}
		for _, h := range hops {
			if listed[h.Node.ID] {
				continue
			}
			listed[h.Node.ID] = true
			rc.Callees = append(rc.Callees, RelatedSymbol{Ref: retrieve.RefOf(h.Node), Depth: 1, Of: c.Name, Relation: "called by"})
		}
	}
	return nil
}

// changedIn records the symbols of file that contain any of lines. A symbol
// is "modified" unless all its lines are in lines or the whole file is new
// or gone (whole, whose change is then "added" or "deleted").
func changedIn(ctx context.Context, g graphdb.Reader, file string, lines []int, whole bool, wholeChange string, rc *Context, byID map[graphdb.NodeID]int) (int, error) {
	nodes, err := g.FindSymbols(ctx, graphdb.SymbolQuery{File: file, Kinds: []graphdb.NodeKind{graphdb.KindFunction, graphdb.KindMember, graphdb.KindType}})
	if err != nil {
		return 0, fmt.Errorf("symbols of %s: %w", file, err)
	}
	lineSet := map[int]bool{}
	for _, l := range lines {
		lineSet[l] = true
	}
	type hit struct {
		n       graphdb.Node
		end     int
		touched []int
	}
	var hits []hit
	for _, n := range nodes {
		if n.SubKind == "field" || n.StartLine <= 0 || n.Synthetic() {
			continue
		}
		end := max(n.EndLine, n.StartLine)
		var touched []int
		for _, l := range lines {
			if l >= n.StartLine && l <= end {
				touched = append(touched, l)
			}
		}
		if len(touched) > 0 {
			hits = append(hits, hit{n, end, touched})
		}
	}
	// A type whose touched lines all lie in touched functions declared
	// inside it (a Python class and its methods) is not itself a changed
	// symbol: the innermost declarations are.
	inner := func(h hit, l int) bool {
		for _, o := range hits {
			if o.n.ID != h.n.ID && o.n.Kind != graphdb.KindType && o.n.StartLine >= h.n.StartLine && o.end <= h.end &&
				l >= o.n.StartLine && l <= o.end {
				return true
			}
		}
		return false
	}
	found := 0
	for _, h := range hits {
		n, end, touched := h.n, h.end, h.touched
		if n.Kind == graphdb.KindType && !whole {
			all := true
			for _, l := range touched {
				all = all && inner(h, l)
			}
			if all {
				continue
			}
		}
		found++
		if i, ok := byID[n.ID]; ok {
			rc.Changed[i].Lines = mergeInts(rc.Changed[i].Lines, touched)
			continue
		}
		ch := "modified"
		if whole || len(touched) == end-n.StartLine+1 {
			ch = wholeChange
		}
		byID[n.ID] = len(rc.Changed)
		rc.Changed = append(rc.Changed, ChangedSymbol{Ref: retrieve.RefOf(n), ID: n.ID, Change: ch, Lines: touched})
	}
	return found, nil
}

func mergeInts(a, b []int) []int {
	set := map[int]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if !set[x] {
			set[x] = true
			a = append(a, x)
		}
	}
	sort.Ints(a)
	return a
}

func sortRelated(rs []RelatedSymbol) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Depth != rs[j].Depth {
			return rs[i].Depth < rs[j].Depth
		}
		return rs[i].Location < rs[j].Location
	})
}

// maxNeighbours caps the semantic neighbours listed; maxNeighbourQuery
// caps the changed symbols whose signatures form the neighbour query.
const (
	maxNeighbours     = 5
	maxNeighbourQuery = 12
)

// neighbours searches with the changed symbols' signatures as one query
// and keeps the hits nearest to the changed symbols in the graph
// (retrieve's Neighbours), dropping the changed symbols and the callers and
// callees already listed.
func neighbours(ctx context.Context, s *retrieve.Searcher, changed []ChangedSymbol, listed map[graphdb.NodeID]bool) ([]RelatedSymbol, error) {
	// The most-changed symbols make the query (a long diff's signatures
	// would make a query of hundreds of terms that matches everything).
	top := append([]ChangedSymbol(nil), changed...)
	sort.SliceStable(top, func(i, j int) bool { return len(top[i].Lines) > len(top[j].Lines) })
	top = top[:min(len(top), maxNeighbourQuery)]
	var q strings.Builder
	var anchors []graphdb.NodeID
	for _, c := range top {
		q.WriteString(retrieve.ShortSig(c.Ref) + "\n")
		anchors = append(anchors, c.ID)
	}
	ns, err := s.Neighbours(ctx, q.String(), anchors, listed, maxNeighbours)
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	names := map[graphdb.NodeID]string{}
	for _, c := range changed {
		names[c.ID] = c.Name
	}
	var out []RelatedSymbol
	for _, n := range ns {
		rel := RelatedSymbol{Ref: n.Ref, Depth: n.Depth, Relation: "similar"}
		if n.Anchor != "" {
			rel.Of = names[n.Anchor]
		}
		out = append(out, rel)
	}
	return out, nil
}
