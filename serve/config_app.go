package serve

import (
	"path"
	"slices"
	"strings"

	"github.com/relayhq/relay/tracker/github"
)

// AppInstallations choose which repositories of a GitHub App's
// installations the bot serves (github.installations). A repository is
// served when it matches an allow rule (or there are none) and no deny
// rule; archived repositories, read-only on GitHub, never are.
type AppInstallations struct {
	Allow []RepoRule `yaml:"allow"`
	Deny  []RepoRule `yaml:"deny"`
}

// RepoRule matches repositories: owner and name are globs (path.Match,
// case-insensitive; empty matches any), topics must all be on the
// repository.
type RepoRule struct {
	Owner  string   `yaml:"owner"`
	Name   string   `yaml:"name"`
	Topics []string `yaml:"topics"`
}

// AppScale reports whether the repositories come from the App's
// installations: app_id without installation_id.
func (g *GitHubConfig) AppScale() bool {
	return g != nil && g.AppID != 0 && g.InstallationID == 0
}

func (r RepoRule) matches(owner, name string, topics []string) bool {
	glob := func(pat, s string) bool {
		if pat == "" {
			return true
		}
		ok, _ := path.Match(strings.ToLower(pat), strings.ToLower(s))
		return ok
	}
	if !glob(r.Owner, owner) || !glob(r.Name, name) {
		return false
	}
	for _, t := range r.Topics {
		if !slices.ContainsFunc(topics, func(x string) bool { return strings.EqualFold(x, t) }) {
			return false
		}
	}
	return true
}

// Serves says whether the filter lets the bot serve r.
func (a *AppInstallations) Serves(r github.AppRepo) bool {
	if r.Archived {
		return false
	}
	owner, name, _ := strings.Cut(r.FullName, "/")
	if a == nil {
		return true
	}
	match := func(rules []RepoRule) bool {
		return slices.ContainsFunc(rules, func(rule RepoRule) bool { return rule.matches(owner, name, r.Topics) })
	}
	return (len(a.Allow) == 0 || match(a.Allow)) && !match(a.Deny)
}

// validate checks the rules' globs.
func (a *AppInstallations) validate(v *validator) {
	if a == nil {
		return
	}
	for list, rules := range map[string][]RepoRule{"allow": a.Allow, "deny": a.Deny} {
		for i, r := range rules {
			for key, pat := range map[string]string{"owner": r.Owner, "name": r.Name} {
				if _, err := path.Match(pat, ""); err != nil {
					v.bad("github.installations.%s[%d].%s %q is not a glob (%v); use * and ? as in acme-* or svc-?", list, i, key, pat, err)
				}
			}
			if r.Owner == "" && r.Name == "" && len(r.Topics) == 0 {
				v.bad("github.installations.%s[%d] matches every repository; give owner, name or topics", list, i)
			}
		}
	}
}
