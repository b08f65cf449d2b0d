package retrieve

import (
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/egress/egresstest"
)

// TestBuildLeavesOutSecretFiles builds the index of the canary repository:
// .env and config/credentials.yml are not indexed (a note says which
// pattern left each out); an operator's allow
// list brings .env back, and a searcher opened with the default policy
// drops hits in it again, so an index built under another policy shows
// nothing it denies.
func TestBuildLeavesOutSecretFiles(t *testing.T) {
	root := egresstest.Repo(t)
	g := memstore.New()
	dir := t.TempDir()
	st, err := Build(t.Context(), root, g, BuildOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".env: secret-bearing file (pattern ", "config/credentials.yml: secret-bearing file (pattern credentials.yml)"} {
		if !slices.ContainsFunc(st.Skipped, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no note %q in %q", want, st.Skipped)
		}
	}
	s, err := Open(root, g, OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(s *Searcher, q string) []string {
		res, err := s.Search(t.Context(), q, SearchOptions{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Path)
		}
		return out
	}
	for _, q := range []string{"AWS_SECRET_ACCESS_KEY", "twilio_auth_token api_key", "RSA PRIVATE KEY"} {
		for _, p := range paths(s, q) {
			if _, secret := egress.DefaultFilePolicy().Match(p); secret {
				t.Errorf("search %q: hit in %s", q, p)
			}
		}
	}

	allow, err := egress.NewFilePolicy(nil, nil, []string{".env"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: dir, SecretFiles: allow}); err != nil {
		t.Fatal(err)
	}
	sa, err := Open(root, g, OpenOptions{Dir: dir, SecretFiles: allow})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(sa, "AWS_SECRET_ACCESS_KEY"); !slices.Contains(got, ".env") {
		t.Errorf("allowed .env not indexed: %v", got)
	}
	sd, err := Open(root, g, OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(sd, "AWS_SECRET_ACCESS_KEY"); slices.Contains(got, ".env") {
		t.Errorf("default policy shows .env from an index built with it allowed: %v", got)
	}
}
