package index

import (
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/graphdb"
)

// ExtractImplements computes the implements edges the indexer derives for
// packages the caller loaded with go/packages (as for ExtractCalls; every
// package passed counts as part of the repository), from the same method-
// set fingerprints and external interfaces a run stores, and returns them
// sorted with the qnames of the external interfaces that get a node
// (those the packages reference). Exported for checkers that compare the
// edges with go/types (index/internal/callcheck).
func ExtractImplements(root string, pkgs []*packages.Package) ([]graphdb.Edge, []string) {
	root, _ = filepath.Abs(root)
	inRepo := map[string]bool{}
	variant := map[string]bool{}
	for _, p := range pkgs {
		inRepo[p.PkgPath] = true
		if p.ID == p.PkgPath+" ["+p.PkgPath+".test]" {
			variant[p.PkgPath] = true
		}
	}
	var sets []methodSet
	var exts []extIface
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
		x := &goExtractor{fset: p.Fset, pkg: p.Types, info: p.TypesInfo, inRepo: func(s string) bool { return inRepo[s] }}
		x.extract(srcs)
		exts = append(exts, x.externals()...)
		sets = append(sets, methodSets(p.Types)...)
	}
	sort.SliceStable(exts, func(i, j int) bool { return exts[i].qname < exts[j].qname })
	nodes, _, extSets := externalNodes(exts)
	var qnames []string
	for _, n := range nodes {
		if n.Kind == graphdb.KindType {
			qnames = append(qnames, n.QName)
		}
	}
	return implementsEdges(append(sets, extSets...)), qnames
}
