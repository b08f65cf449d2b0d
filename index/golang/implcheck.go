package golang

import (
	"sort"

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
	var sets []methodSet
	var exts []extIface
	eachExtracted(root, pkgs, func(p *packages.Package, x *extractor) {
		exts = append(exts, x.externals()...)
		sets = append(sets, methodSets(p.Types)...)
	})
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
