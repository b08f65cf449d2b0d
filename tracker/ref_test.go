package tracker

import "testing"

func TestParseRefGitLab(t *testing.T) {
	good := map[string]Ref{
		"gitlab:acme/shop#7":             {Source: GitLab, Repo: "acme/shop", Number: "7"},
		"gitlab:acme/platform/shop#0012": {Source: GitLab, Repo: "acme/platform/shop", Number: "12"},
	}
	for s, want := range good {
		got, err := ParseRef(s)
		if err != nil || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if back, err := ParseRef(got.Key()); err != nil || back != got {
			t.Errorf("Key %q does not parse back: %+v, %v", got.Key(), back, err)
		}
	}
	for _, s := range []string{"gitlab:shop#7", "gitlab:acme//shop#7", "gitlab:acme/shop", "gitlab:acme/shop#0", "gitlab:/shop#1", "gitlab:acme/ shop#1"} {
		if r, err := ParseRef(s); err == nil {
			t.Errorf("ParseRef(%q) = %+v, want an error", s, r)
		}
	}
}
