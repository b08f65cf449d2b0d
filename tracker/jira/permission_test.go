package jira

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// accessJira fakes the endpoints behind MayCommand as Cloud (REST v3,
// account ids, GET /user/groups) or Data Center (REST v2, user names, GET
// /user?expand=groups) answer them. Project SHOP has the roles Developers
// (the user dev directly, the group contractors) and Administrators (the
// group jira-admins); the users' groups are in groups. Every call is
// counted by path.
func accessJira(t *testing.T, cloud bool) (*Client, map[string]int) {
	api := "/rest/api/2"
	if cloud {
		api = "/rest/api/3"
	}
	groups := map[string][]string{"dev": {"staff"}, "ctr": {"contractors"}, "boss": {"jira-admins"}, "vis": {"staff"}, "ops": {"ops-team"}}
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(401)
			return
		}
		p := strings.TrimPrefix(r.URL.Path, api)
		calls[p]++
		role := func(url string) string { return "http://" + r.Host + api + "/project/SHOP/role/" + url }
		var out any
		switch {
		case cloud && p == "/user/groups":
			var gs []map[string]string
			for _, g := range groups[r.URL.Query().Get("accountId")] {
				gs = append(gs, map[string]string{"name": g})
			}
			out = gs
		case !cloud && p == "/user" && r.URL.Query().Get("expand") == "groups":
			var items []map[string]string
			for _, g := range groups[r.URL.Query().Get("username")] {
				items = append(items, map[string]string{"name": g})
			}
			out = map[string]any{"groups": map[string]any{"items": items}}
		case p == "/project/SHOP/role":
			out = map[string]string{"Developers": role("10001"), "Administrators": role("10002")}
		case p == "/project/SHOP/role/10001":
			user := map[string]any{"type": "atlassian-user-role-actor", "name": "dev"}
			if cloud {
				user = map[string]any{"type": "atlassian-user-role-actor", "actorUser": map[string]string{"accountId": "dev"}}
			}
			out = map[string]any{"actors": []any{user, map[string]any{"type": "atlassian-group-role-actor", "name": "contractors"}}}
		case p == "/project/SHOP/role/10002":
			out = map[string]any{"actors": []any{map[string]any{"type": "atlassian-group-role-actor", "actorGroup": map[string]string{"name": "jira-admins"}}}}
		case p == "/myself":
			out = map[string]string{"accountId": "bot", "displayName": "relay"}
		default:
			w.WriteHeader(404)
			return
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	o := Options{BaseURL: srv.URL, Cloud: cloud, PAT: "pat"}
	if cloud {
		o = Options{BaseURL: srv.URL, Cloud: true, Email: "a@b", APIToken: "tok"}
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, calls
}

// TestMayCommand: project role members (directly or through a group) and
// members of a configured group may command; others, and an unknown
// account, may not.
func TestMayCommand(t *testing.T) {
	for _, cloud := range []bool{true, false} {
		name := "datacenter"
		if cloud {
			name = "cloud"
		}
		t.Run(name, func(t *testing.T) {
			c, _ := accessJira(t, cloud)
			tests := []struct {
				account string
				access  Access
				want    bool
			}{
				{"dev", Access{Roles: []string{"Developers"}}, true},
				{"ctr", Access{Roles: []string{"developers"}}, true}, // role names ignore case
				{"boss", Access{Roles: []string{"Administrators", "Developers"}}, true},
				{"boss", Access{Roles: []string{"Developers"}}, false},
				{"vis", Access{Roles: []string{"Administrators", "Developers"}}, false},
				{"ops", Access{Groups: []string{"ops-team"}}, true},
				{"ops", Access{Roles: []string{"Developers"}, Groups: []string{"other"}}, false},
				{"", Access{Roles: []string{"Developers"}}, false},
				{"dev", Access{}, false},
			}
			for _, tc := range tests {
				got, err := c.MayCommand(t.Context(), tc.account, "SHOP", tc.access)
				if err != nil {
					t.Fatalf("%s %+v: %v", tc.account, tc.access, err)
				}
				if got != tc.want {
					t.Errorf("%s %+v: %v, want %v", tc.account, tc.access, got, tc.want)
				}
			}
			if _, err := c.Myself(t.Context()); err != nil {
				t.Errorf("Myself: %v", err)
			}
		})
	}
}
