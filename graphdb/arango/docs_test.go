package arango

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// validKey is ArangoDB's _key syntax (traditional key generator).
var validKey = regexp.MustCompile(`^[a-zA-Z0-9_\-:.@()+,=;$!*'%]{1,254}$`)

func TestDocKey(t *testing.T) {
	t.Parallel()
	ids := []string{
		"go:net/http.Server.Serve", "go:ex/a.(*T).M", "file:dir with space/ü.go", "", "py:pkg.mod.Class.method",
		"ts:src/a/b.ts.Foo.bar", string(make([]byte, 1000)), "go:ex/a.Server.Serve#2",
	}
	seen := map[string]string{}
	for _, id := range ids {
		k := docKey(id)
		if !validKey.MatchString(k) || len(k) != 40 {
			t.Errorf("docKey(%q) = %q: not a 40-character valid _key", id, k)
		}
		if k != docKey(id) {
			t.Errorf("docKey(%q) is not stable", id)
		}
		if other, ok := seen[k]; ok {
			t.Errorf("docKey(%q) == docKey(%q)", id, other)
		}
		seen[k] = id
	}
	// The mapping is part of the stored layout: changing it orphans every
	// existing database, so pin one value.
	if got, want := docKey("go:ex/a.Server.Serve"), "005fa779c9758ba4ffe1b3f3abbb50c207094cba"; got != want {
		t.Errorf("docKey(go:ex/a.Server.Serve) = %s, want %s (the stored layout changed; bump schemaVersion)", got, want)
	}
	if got := nodeHandle("x"); got != "nodes/"+docKey("x") {
		t.Errorf("nodeHandle(x) = %q", got)
	}
}

func TestSuffixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		qname string
		want  []string
	}{
		{"", nil},
		{"Serve", []string{"Serve"}},
		{"ex/a.Server.Serve", []string{"ex/a.Server.Serve", "a.Server.Serve", "Server.Serve", "Serve"}},
		{"b.go", []string{"b.go", "go"}},
		{"net/http", []string{"net/http", "http"}},
		{"trailing.", []string{"trailing."}},
		{"a..b", []string{"a..b", ".b", "b"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, suffixes(tc.qname)); diff != "" {
			t.Errorf("suffixes(%q) (-want +got):\n%s", tc.qname, diff)
		}
	}
}

// TestSuffixesMatchContract checks that membership in suffixes(qname) is
// exactly the SymbolQuery.Suffix rule: qname == s, or it ends with "."+s
// or "/"+s.
func TestSuffixesMatchContract(t *testing.T) {
	t.Parallel()
	qnames := []string{"ex/a.Server.Serve", "b.go", "ex/a", "a", "x.y/z.w", "ex/b.Main", "a..b"}
	cands := []string{"Serve", "erver.Serve", "Server.Serve", "a.Server.Serve", "ex/a.Server.Serve", "go", "b.go", "a",
		"ex/a", "z.w", "y/z.w", "w", "Main", "b.Main", "x.y/z.w", ".b", "b", "/a"}
	for _, q := range qnames {
		set := map[string]bool{}
		for _, s := range suffixes(q) {
			set[s] = true
		}
		for _, c := range cands {
			want := q == c || hasSuffix(q, "."+c) || hasSuffix(q, "/"+c)
			if set[c] != want {
				t.Errorf("qname %q, suffix %q: in suffixes = %v, contract says %v", q, c, set[c], want)
			}
		}
	}
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

func TestDocRoundTrip(t *testing.T) {
	t.Parallel()
	n := graphdb.Node{ID: "go:ex/a.Server.Serve", Kind: graphdb.KindMember, SubKind: "method", Name: "Serve",
		QName: "ex/a.Server.Serve", Loc: "a.go:Server.Serve", Language: "go", File: "a.go", StartLine: 12, EndLine: 20,
		Signature: "func (s *Server) Serve() error", Doc: "Serve serves.", Exported: true, Test: true, Generated: true,
		Testdata: true, Attrs: map[string]string{"go.methodset": "Serve"}}
	var nd nodeDoc
	roundTrip(t, toNodeDoc("a.go", n), &nd)
	if diff := cmp.Diff(n, nd.node()); diff != "" {
		t.Errorf("node round trip (-want +got):\n%s", diff)
	}
	if nd.Owner != "a.go" || nd.Key != docKey(string(n.ID)) || len(nd.Suffixes) != 4 {
		t.Errorf("stored node fields: owner %q key %q suffixes %v", nd.Owner, nd.Key, nd.Suffixes)
	}

	e := graphdb.Edge{From: "go:a.F", To: "go:b.G", Kind: graphdb.EdgeCalls, File: "a.go", Line: 7}
	var ed edgeDoc
	roundTrip(t, toEdgeDoc("a.go", e), &ed)
	if diff := cmp.Diff(e, ed.edge()); diff != "" {
		t.Errorf("edge round trip (-want +got):\n%s", diff)
	}
	if ed.From != nodeHandle(e.From) || ed.To != nodeHandle(e.To) || ed.Owner != "a.go" {
		t.Errorf("stored edge handles %q → %q owner %q", ed.From, ed.To, ed.Owner)
	}

	f := graphdb.FileRecord{Path: "b.go", Hash: "h", Language: "go", Module: "ex/b", Size: 300, Errors: []string{"b.go:1:1: x"}}
	var fd fileDoc
	roundTrip(t, toFileDoc(f), &fd)
	if diff := cmp.Diff(f, fd.record()); diff != "" {
		t.Errorf("file round trip (-want +got):\n%s", diff)
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
