package arango

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
)

// render prints a query and its bind variables (sorted) as the golden text.
func render(t *testing.T, q aql) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(q.Text)
	b.WriteString("-- bind\n")
	keys := make([]string, 0, len(q.Bind))
	for k := range q.Bind {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(q.Bind[k])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("@" + k + " = " + string(v) + "\n")
	}
	return b.String()
}

func TestQueryGolden(t *testing.T) {
	tests := []struct {
		name string
		q    aql
	}{
		{"find_id.aql", findSymbolsQuery(graphdb.SymbolQuery{ID: "go:ex/a.New"})},
		{"find_all_fields.aql", findSymbolsQuery(graphdb.SymbolQuery{QName: "ex/a.Server.Serve", Suffix: "Server.Serve", Name: "Serve",
			Loc: "a.go:Server.Serve", File: "a.go", Kinds: []graphdb.NodeKind{graphdb.KindMember, graphdb.KindFunction}, Limit: 5})},
		{"find_suffix.aql", findSymbolsQuery(graphdb.SymbolQuery{Suffix: "http.Server"})},
		{"neighbors_out.aql", neighborsQuery("go:ex/b.Main", graphdb.EdgeCalls, graphdb.Outbound)},
		{"neighbors_in.aql", neighborsQuery("go:ex/a.helper", graphdb.EdgeCalls, graphdb.Inbound)},
		{"traverse_in.aql", traverseQuery("go:ex/a.helper", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 3)},
		{"traverse_out.aql", traverseQuery("go:ex/a.Server", []graphdb.EdgeKind{graphdb.EdgeParamOf, graphdb.EdgeImplements}, graphdb.Outbound, 1)},
		{"files.aql", filesQuery()},
		{"stats.aql", statsQuery()},
		{"scan_nodes.aql", scanNodesQuery()},
		{"scan_edges.aql", scanEdgesQuery()},
		{"owners.aql", ownersQuery("c.go", []string{docKey("go:ex/a.New")})},
		{"remove_owned.aql", removeOwnedQuery(colEdges, "b.go")},
		{"lock_acquire.aql", acquireLockQuery("host:1:ab", 1_000, 61_000)},
		{"lock_renew.aql", renewLockQuery("host:1:ab", 81_000)},
		{"lock_release.aql", releaseLockQuery("host:1:ab")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { testutil.Golden(t, tc.name, render(t, tc.q)) })
	}
}

// TestQueryBindVars checks that every @name in a query has a bind variable
// and every bind variable is used: the server rejects either mistake.
func TestQueryBindVars(t *testing.T) {
	t.Parallel()
	qs := []aql{
		findSymbolsQuery(graphdb.SymbolQuery{ID: "x", QName: "q", Suffix: "s", Name: "n", Loc: "l", File: "f", Kinds: []graphdb.NodeKind{graphdb.KindType}}),
		findSymbolsQuery(graphdb.SymbolQuery{Name: "n"}),
		neighborsQuery("x", graphdb.EdgeCalls, graphdb.Inbound),
		traverseQuery("x", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 2),
		filesQuery(), statsQuery(), scanNodesQuery(), scanEdgesQuery(), ownersQuery("p", []string{"k"}), removeOwnedQuery(colNodes, "p"),
		acquireLockQuery("h", 1, 2), renewLockQuery("h", 2), releaseLockQuery("h"),
	}
	for _, q := range qs {
		used := map[string]bool{}
		for _, tok := range strings.FieldsFunc(q.Text, func(r rune) bool {
			return !(r == '@' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if i := strings.IndexByte(tok, '@'); i >= 0 {
				used[strings.TrimPrefix(tok[i+1:], "")] = true
			}
		}
		for name := range used {
			if _, ok := q.Bind[name]; !ok {
				t.Errorf("query uses @%s without a bind variable:\n%s", name, q.Text)
			}
		}
		for name := range q.Bind {
			if !used[name] {
				t.Errorf("bind variable %q is not used by:\n%s", name, q.Text)
			}
		}
	}
}
