//go:build cgo

package tscheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// TestAssignedMethods indexes express 4.21.2, commander 2.20.3, send
// 0.19.0 and body-parser 1.20.3 (express's dependencies),
// JavaScript whose methods are functions assigned to prototypes and to
// properties (Route.prototype.dispatch = function …, proto.handle =
// function …, app.init = function …, Command.prototype.option = …), and
// requires precision >= 0.95 and recall >= 0.85 against the language
// service's go-to-definition of every call in those declarations
// (defs.js; the call hierarchy has no item for them).
func TestAssignedMethods(t *testing.T) {
	node := need(t)
	root := t.TempDir()
	copyTree(t, filepath.Join("node_modules", "express", "lib"), filepath.Join(root, "express"))
	copyTree(t, filepath.Join("node_modules", "commander"), filepath.Join(root, "commander"))
	// send's index.js without its package.json: express's require("send")
	// must stay a package outside the repository, as for the compiler.
	send, err := os.ReadFile(filepath.Join("node_modules", "send", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, root, "send/index.js", string(send))
	copyTree(t, filepath.Join("node_modules", "body-parser", "lib"), filepath.Join(root, "body-parser"))
	s := compareDefs(t, node, root)
	check(t, "express 4.21.2, commander 2.20.3, send 0.19.0, body-parser 1.20.3", s, 150)
}

// compareDefs scores relay's call edges from the declarations defs.js
// lists against the callee each call's definition is.
func compareDefs(t *testing.T, node, root string) score {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), node, "defs.js", root)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("defs.js: %v\n%s", err, stderr.String())
	}
	callers, truth, blind := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if c, ok := strings.CutPrefix(l, "caller "); ok {
			callers[c] = true
		} else if site, ok := strings.CutPrefix(l, "blind\t"); ok {
			// caller and line: a call of X.get may land on the function
			// of a chained assignment X.get = X.header = function header.
			blind[site[:strings.LastIndexByte(site, '\t')]] = true
		} else if from, to, ok := strings.Cut(l, "\t"); ok && from != to {
			truth[from+" -> "+strings.TrimSuffix(to, ".constructor")] = true
		}
	}
	ours, unseen := map[string]bool{}, map[string]bool{}
	locs, from := locations(t, st, callers)
	for _, n := range from {
		es, err := st.Neighbors(t.Context(), n.ID, graphdb.EdgeCalls, graphdb.Outbound, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			to, ok := locs[e.To]
			switch {
			case !ok || to == n.Loc:
			case blind[fmt.Sprintf("%s\t%d", n.Loc, e.Line)] && !truth[n.Loc+" -> "+to]:
				unseen[n.Loc+" -> "+to] = true
			default:
				ours[n.Loc+" -> "+to] = true
			}
		}
	}
	return scored(score{callers: len(callers), truth: len(truth), relay: len(ours), blind: len(unseen),
		blindWhy: "calls the language service resolves to nothing"}, truth, ours)
}

// locations returns every node's Loc (constructors as their class) and
// the nodes whose Loc is one of callers.
func locations(t *testing.T, st graphdb.Store, callers map[string]bool) (map[graphdb.NodeID]string, []graphdb.Node) {
	t.Helper()
	files, err := st.Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	locs := map[graphdb.NodeID]string{}
	var from []graphdb.Node
	for _, f := range files {
		if f.IsPseudo() {
			continue
		}
		ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: f.Path})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			locs[n.ID] = strings.TrimSuffix(n.Loc, ".constructor")
			if callers[n.Loc] {
				from = append(from, n)
			}
		}
	}
	return locs, from
}
