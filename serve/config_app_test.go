package serve

import (
	"testing"

	"github.com/relayhq/relay/tracker/github"
)

// TestAppInstallationsServes: allow and deny rules by owner and name globs
// (case-insensitive) and topics; archived repositories are never served.
func TestAppInstallationsServes(t *testing.T) {
	filter := &AppInstallations{
		Allow: []RepoRule{{Owner: "acme", Name: "svc-*"}, {Topics: []string{"relay", "go"}}},
		Deny:  []RepoRule{{Name: "*-legacy"}},
	}
	tests := []struct {
		name   string
		filter *AppInstallations
		repo   github.AppRepo
		want   bool
	}{
		{"no filter", nil, github.AppRepo{FullName: "any/thing"}, true},
		{"no filter, archived", nil, github.AppRepo{FullName: "any/thing", Archived: true}, false},
		{"owner and name glob", filter, github.AppRepo{FullName: "acme/svc-pay"}, true},
		{"case-insensitive", filter, github.AppRepo{FullName: "ACME/Svc-Pay"}, true},
		{"other owner", filter, github.AppRepo{FullName: "umbrella/svc-pay"}, false},
		{"name outside the glob", filter, github.AppRepo{FullName: "acme/web"}, false},
		{"all topics", filter, github.AppRepo{FullName: "umbrella/web", Topics: []string{"Go", "relay", "x"}}, true},
		{"one topic of two", filter, github.AppRepo{FullName: "umbrella/web", Topics: []string{"relay"}}, false},
		{"denied", filter, github.AppRepo{FullName: "acme/svc-legacy"}, false},
		{"archived", filter, github.AppRepo{FullName: "acme/svc-pay", Archived: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.filter.Serves(tt.repo); got != tt.want {
				t.Errorf("Serves(%+v) = %t, want %t", tt.repo, got, tt.want)
			}
		})
	}
}
