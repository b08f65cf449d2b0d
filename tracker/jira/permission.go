package jira

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Myself returns the account the client authenticates as (GET /myself):
// one authenticated call that proves the credentials, for relay serve
// --check-config.
func (c *Client) Myself(ctx context.Context) (string, error) {
	var u user
	if err := c.do(ctx, "GET", "/myself", nil, nil, &u); err != nil {
		return "", fmt.Errorf("jira: check the credentials: %w", err)
	}
	return u.label(), nil
}

// Access says who may trigger scoping with a comment command: a member of
// one of Roles in the project (directly or through a group), or of
// one of Groups. Both empty allows nobody.
type Access struct {
	Roles  []string
	Groups []string
}

// MayCommand reports whether the account (Cloud account id, Data Center
// user name) may trigger scoping with a comment in project: Jira's own
// answer, from the user's groups (Cloud GET /user/groups, Data Center GET
// /user?expand=groups) and the actors of the project's roles (GET
// /project/{key}/role and /project/{key}/role/{id}).
func (c *Client) MayCommand(ctx context.Context, account, project string, a Access) (bool, error) {
	if account == "" {
		return false, nil
	}
	groups, err := c.userGroups(ctx, account)
	if err != nil {
		return false, err
	}
	for _, g := range a.Groups {
		if containsFold(groups, g) {
			return true, nil
		}
	}
	if len(a.Roles) == 0 {
		return false, nil
	}
	var roles map[string]string // role name → its REST URL
	if err := c.do(ctx, "GET", "/project/"+url.PathEscape(project)+"/role", nil, nil, &roles); err != nil {
		return false, fmt.Errorf("jira: list the roles of project %s: %w", project, err)
	}
	for name, roleURL := range roles {
		if !containsFold(a.Roles, name) {
			continue
		}
		var role struct {
			Actors []struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				ActorUser *struct {
					AccountID string `json:"accountId"`
				} `json:"actorUser"`
				ActorGroup *struct {
					Name string `json:"name"`
				} `json:"actorGroup"`
			} `json:"actors"`
		}
		id := path.Base(roleURL)
		if err := c.do(ctx, "GET", "/project/"+url.PathEscape(project)+"/role/"+url.PathEscape(id), nil, nil, &role); err != nil {
			return false, fmt.Errorf("jira: read role %s of project %s: %w", name, project, err)
		}
		for _, act := range role.Actors {
			switch {
			case act.ActorUser != nil && act.ActorUser.AccountID == account:
				return true, nil
			case act.Type == "atlassian-user-role-actor" && strings.EqualFold(act.Name, account):
				return true, nil // Data Center names the user
			case act.ActorGroup != nil && containsFold(groups, act.ActorGroup.Name):
				return true, nil
			case act.Type == "atlassian-group-role-actor" && containsFold(groups, act.Name):
				return true, nil
			}
		}
	}
	return false, nil
}

// userGroups lists the names of the groups of an account.
func (c *Client) userGroups(ctx context.Context, account string) ([]string, error) {
	var names []string
	if c.opts.Cloud {
		var gs []struct {
			Name string `json:"name"`
		}
		if err := c.do(ctx, "GET", "/user/groups", url.Values{"accountId": {account}}, nil, &gs); err != nil {
			return nil, fmt.Errorf("jira: list the groups of %s: %w", account, err)
		}
		for _, g := range gs {
			names = append(names, g.Name)
		}
		return names, nil
	}
	var u struct {
		Groups struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"groups"`
	}
	if err := c.do(ctx, "GET", "/user", url.Values{"username": {account}, "expand": {"groups"}}, nil, &u); err != nil {
		return nil, fmt.Errorf("jira: list the groups of %s: %w", account, err)
	}
	for _, g := range u.Groups.Items {
		names = append(names, g.Name)
	}
	return names, nil
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// SignatureHeader names the header a signed delivery carries, or "" when
// no secret is configured and unsigned deliveries are accepted: relay serve
// refuses a delivery without it before reading its body.
func (w *Webhook) SignatureHeader() string {
	if len(w.secret) == 0 {
		return ""
	}
	return signatureHeader
}
