package graphdb

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ValidateReplace checks the input of Tx.ReplaceFile before a backend
// writes anything: a non-empty path, non-empty and unique node ids, known
// node and edge kinds, edges with both ends, and call-site lines in
// 0..MaxUint32. Every backend calls it, so they reject the same input with
// the same message.
func ValidateReplace(f FileRecord, nodes []Node, edges []Edge) error {
	if f.Path == "" {
		return errors.New("replace file: empty path in FileRecord")
	}
	seen := make(map[NodeID]bool, len(nodes))
	for i, n := range nodes {
		if n.ID == "" {
			return fmt.Errorf("replace file %s: node %d (%q) has an empty id", f.Path, i, n.QName)
		}
		if !slices.Contains(NodeKinds, n.Kind) {
			return fmt.Errorf("replace file %s: node %s has unknown kind %q (want one of %v)", f.Path, n.ID, n.Kind, NodeKinds)
		}
		if seen[n.ID] {
			return fmt.Errorf("replace file %s: node id %q appears twice in this file; node ids must be unique", f.Path, n.ID)
		}
		seen[n.ID] = true
	}
	for i, e := range edges {
		if e.From == "" || e.To == "" {
			return fmt.Errorf("replace file %s: edge %d (%s %q → %q) has an empty end", f.Path, i, e.Kind, e.From, e.To)
		}
		if e.Line < 0 || e.Line > math.MaxUint32 {
			return fmt.Errorf("replace file %s: edge %s → %s has line %d out of range", f.Path, e.From, e.To, e.Line)
		}
		if !slices.Contains(EdgeKinds, e.Kind) {
			return fmt.Errorf("replace file %s: edge %s → %s has unknown kind %q (want one of %v)", f.Path, e.From, e.To, e.Kind, EdgeKinds)
		}
	}
	return nil
}
