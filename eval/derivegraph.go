package eval

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// DESIGN: gold functions for languages other than Go. Go files are read
// with go/parser (GoldFromDiff), which needs no index. Every other language
// goes through the code graph of the pre-fix checkout, so that a language
// gets function-level gold the day its frontend lands, without a change
// here: the graph's function nodes and non-field member nodes of the file
// carry File, StartLine and EndLine, and their location names (Loc) are the
// names localization predicts. Each changed line of the old file (a deleted
// code line, or the old line code is inserted before) is given to the
// innermost such node that holds it — an insertion only when it falls
// strictly inside — so a fix inside a callback or a nested class method
// names that function, not every function around it.

// goldFromGraph adds one changed non-Go file to g: skipped with a reason,
// or gold with the functions the change touches.
func goldFromGraph(ctx context.Context, root string, d udiff.FileDiff, graph graphdb.Reader, g *Gold) error {
	p := d.OldPath
	lang, ok := retrieve.LanguageOf(p)
	switch {
	case !ok || !slices.Contains(retrieve.SourceLanguages, lang):
		g.Skipped = append(g.Skipped, p+": not source code")
		return nil
	case IsTestSource(p):
		g.Skipped = append(g.Skipped, p+": test")
		return nil
	case vendoredPath(p):
		g.Skipped = append(g.Skipped, p+": testdata, vendored or hidden directory")
		return nil
	case d.Status == udiff.StatusRenamed && len(d.Hunks) == 0:
		g.Skipped = append(g.Skipped, p+": renamed without edits")
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
		return fmt.Errorf("%s is in the diff but not in the checkout %s: %w (is the diff against this tree?)", p, root, err)
	}
	isCode := codeLineFunc(lang)
	if d.Status != udiff.StatusDeleted {
		if why := trivialChange(d.Hunks, isCode); why != "" {
			g.Skipped = append(g.Skipped, p+": "+why)
			return nil
		}
	}
	g.Files = append(g.Files, p)
	nodes, err := graph.FindSymbols(ctx, graphdb.SymbolQuery{File: p})
	if err != nil {
		return fmt.Errorf("graph nodes of %s: %w", p, err)
	}
	if len(nodes) == 0 {
		g.Skipped = append(g.Skipped, p+": functions unknown (the graph has nothing for this file; is its language indexed?)")
		return nil
	}
	funcs := functionNodes(nodes)
	if d.Status == udiff.StatusDeleted {
		for _, n := range funcs {
			g.Functions = append(g.Functions, n.Loc)
		}
		return nil
	}
	for _, pt := range changedPoints(d.Hunks, isCode) {
		if n, ok := innermost(funcs, pt); ok {
			g.Functions = append(g.Functions, n.Loc)
		}
	}
	return nil
}

// functionNodes keeps the nodes localization can name as functions:
// functions and methods (members other than fields) with a location name
// and lines, declared in source (not synthetic).
func functionNodes(nodes []graphdb.Node) []graphdb.Node {
	var out []graphdb.Node
	for _, n := range nodes {
		fn := n.Kind == graphdb.KindFunction || (n.Kind == graphdb.KindMember && n.SubKind != "field")
		if fn && !n.Synthetic() && n.Loc != "" && n.StartLine > 0 && n.EndLine >= n.StartLine {
			out = append(out, n)
		}
	}
	return out
}

// changePoint is one changed line of the old file: deleted (or modified),
// or the line code was inserted before.
type changePoint struct {
	line     int
	inserted bool
}

// changedPoints lists the old-file lines a fix changes code at, by the
// rules touches applies to Go: deleted code lines (deleted comment lines
// too when the hunk is one contiguous change that adds code), and the
// insertion points of hunks that add code.
func changedPoints(hs []udiff.Hunk, isCode func(string) bool) []changePoint {
	var out []changePoint
	for _, h := range hs {
		addCode := slices.ContainsFunc(h.AddedText, isCode)
		single := contiguous(h.Deleted) && contiguous(h.Added)
		for i, l := range h.Deleted {
			if (i < len(h.DeletedText) && isCode(h.DeletedText[i])) || (addCode && single) {
				out = append(out, changePoint{line: l})
			}
		}
		if addCode {
			for _, l := range h.Inserted {
				out = append(out, changePoint{line: l, inserted: true})
			}
		}
	}
	return out
}

// innermost returns the smallest function holding the point: a deleted line
// within its lines, an insertion strictly after its first line and at or
// before its last (code inserted before the first line or after the
// closing line is outside it).
func innermost(funcs []graphdb.Node, pt changePoint) (graphdb.Node, bool) {
	var best graphdb.Node
	found := false
	for _, n := range funcs {
		in := pt.line >= n.StartLine && pt.line <= n.EndLine
		if pt.inserted {
			in = pt.line > n.StartLine && pt.line <= n.EndLine
		}
		if !in {
			continue
		}
		if !found || n.EndLine-n.StartLine < best.EndLine-best.StartLine {
			best, found = n, true
		}
	}
	return best, found
}

// codeLineFunc returns the code-line test for a language: isCodeLine (C-style
// comments) plus "#" comments for the languages that use them.
func codeLineFunc(lang string) func(string) bool {
	switch lang {
	case "python", "ruby", "shell":
		return func(s string) bool {
			return isCodeLine(s) && !strings.HasPrefix(strings.TrimSpace(s), "#")
		}
	}
	return isCodeLine
}

// IsTestSource reports whether a repository path holds tests in any
// language: retrieve.IsTestPath's file conventions, and files under a
// directory named test, tests, __tests__, spec or testdata (Maven's
// src/test/java, JavaScript's test/).
func IsTestSource(p string) bool {
	if retrieve.IsTestPath(p) {
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec", "testdata":
			return true
		}
	}
	return false
}

// vendoredPath reports whether a path lies in a directory no gold comes
// from in languages other than Go: node_modules, vendor and hidden
// directories.
func vendoredPath(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "node_modules" || seg == "vendor" || (strings.HasPrefix(seg, ".") && seg != ".") {
			return true
		}
	}
	return false
}
