package main

import (
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/relayhq/relay/tracker/adf"
)

// ghAPI is an httptest fake of the part of GitHub's REST API (Enterprise
// layout, /api/v3/) that tracker/github's real client calls: issues,
// their comments (every version of every comment is recorded), and, with
// an app key, the GitHub App installation lookup and token exchange.
type ghAPI struct {
	srv *httptest.Server

	mu       sync.Mutex
	token    string         // accepted bearer token (PAT, or the last installation token)
	appKey   *rsa.PublicKey // verifies app JWTs when set
	appID    int64
	tokens   int                  // installation tokens issued
	issues   map[string][2]string // "owner/name#n" → title, body
	comments map[string][]int64   // "owner/name#n" → comment ids
	versions map[int64][]string   // comment id → every body it had
	nextID   int64
}

func newGHAPI(t *testing.T, token string) *ghAPI {
	f := &ghAPI{token: token, issues: map[string][2]string{}, comments: map[string][]int64{}, versions: map[int64][]string{}, nextID: 9000}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *ghAPI) baseURL() string { return f.srv.URL + "/api/v3/" }

func (f *ghAPI) addIssue(key, title, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issues[key] = [2]string{title, body}
}

// commentsOf returns the ids of an issue's comments and every version of
// each.
func (f *ghAPI) commentsOf(key string) (ids []int64, versions map[int64][]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	versions = map[int64][]string{}
	for _, id := range f.comments[key] {
		versions[id] = append([]string(nil), f.versions[id]...)
	}
	return append([]int64(nil), f.comments[key]...), versions
}

// installationToken is the last token issued (what git must present).
func (f *ghAPI) installationToken() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.token, f.tokens
}

func ghWrite(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *ghAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/v3"), "/"), "/")
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if parts[0] == "app" || len(parts) == 4 && parts[3] == "installation" {
		f.serveApp(w, r, parts, auth)
		return
	}
	if auth != f.token {
		ghWrite(w, 401, map[string]string{"message": "Bad credentials"})
		return
	}
	if len(parts) == 3 && parts[0] == "repos" && r.Method == http.MethodGet {
		ghWrite(w, 200, map[string]any{"id": 1, "full_name": parts[1] + "/" + parts[2]})
		return
	}
	if len(parts) < 5 || parts[0] != "repos" || parts[3] != "issues" {
		ghWrite(w, 404, map[string]string{"message": "Not Found"})
		return
	}
	repo := parts[1] + "/" + parts[2]
	var req struct{ Body string }
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&req)
	}
	switch {
	case len(parts) == 6 && parts[4] == "comments" && r.Method == http.MethodPatch:
		id, _ := strconv.ParseInt(parts[5], 10, 64)
		if _, ok := f.versions[id]; !ok {
			ghWrite(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		f.versions[id] = append(f.versions[id], req.Body)
		ghWrite(w, 200, f.commentJSON(id))
	case len(parts) == 5 && r.Method == http.MethodGet:
		is, ok := f.issues[repo+"#"+parts[4]]
		if !ok {
			ghWrite(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		n, _ := strconv.Atoi(parts[4])
		ghWrite(w, 200, map[string]any{"number": n, "title": is[0], "body": is[1], "labels": []any{},
			"html_url": "https://github.example/" + repo + "/issues/" + parts[4], "user": map[string]string{"login": "ada"}})
	case len(parts) == 6 && parts[5] == "comments" && r.Method == http.MethodGet:
		out := []any{}
		for _, id := range f.comments[repo+"#"+parts[4]] {
			out = append(out, f.commentJSON(id))
		}
		ghWrite(w, 200, out)
	case len(parts) == 6 && parts[5] == "comments" && r.Method == http.MethodPost:
		f.nextID++
		key := repo + "#" + parts[4]
		f.comments[key] = append(f.comments[key], f.nextID)
		f.versions[f.nextID] = []string{req.Body}
		ghWrite(w, 201, f.commentJSON(f.nextID))
	default:
		ghWrite(w, 404, map[string]string{"message": "Not Found"})
	}
}

func (f *ghAPI) commentJSON(id int64) map[string]any {
	v := f.versions[id]
	return map[string]any{"id": id, "body": v[len(v)-1], "created_at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339),
		"user": map[string]string{"login": "relay-bot", "type": "User"}}
}

// serveApp answers the app endpoints, authenticated by the app's JWT: the
// repository's installation (77) and its access tokens.
func (f *ghAPI) serveApp(w http.ResponseWriter, r *http.Request, parts []string, auth string) {
	if f.appKey == nil {
		ghWrite(w, 401, map[string]string{"message": "no app configured"})
		return
	}
	var claims jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(auth, &claims, func(*jwt.Token) (any, error) { return f.appKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer(strconv.FormatInt(f.appID, 10))); err != nil {
		ghWrite(w, 401, map[string]string{"message": "A JSON web token could not be decoded: " + err.Error()})
		return
	}
	switch {
	case len(parts) == 4 && parts[0] == "app" && parts[1] == "installations" && parts[3] == "access_tokens" && r.Method == http.MethodPost:
		f.tokens++
		f.token = fmt.Sprintf("ghs_installation_%s_%d", parts[2], f.tokens)
		ghWrite(w, 201, map[string]any{"token": f.token, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	case parts[0] == "repos":
		ghWrite(w, 200, map[string]any{"id": 77})
	default:
		ghWrite(w, 404, map[string]string{"message": "Not Found"})
	}
}

// jiraAPI is an httptest fake of Jira Cloud's REST v3 issue and comment
// endpoints, driven by tracker/jira's real client. Every comment body must
// be a valid Atlassian Document Format document (adf.Validate); every
// version of every comment is recorded as the ADF JSON sent.
type jiraAPI struct {
	srv  *httptest.Server
	t    *testing.T
	auth string // the expected Authorization header

	mu       sync.Mutex
	comments map[string][]string    // issue key → comment ids
	versions map[string][]*adf.Node // comment id → every body
	invalid  []string               // why a body was refused
	issues   map[string][2]string   // key → summary, description
	nextID   int
	// developers are the account ids in project SHOP's Developers role;
	// admins is the account id in the jira-administrators group.
	developers []string
	admins     string
}

func newJiraAPI(t *testing.T, auth string) *jiraAPI {
	f := &jiraAPI{t: t, auth: auth, comments: map[string][]string{}, versions: map[string][]*adf.Node{}, issues: map[string][2]string{}, nextID: 10100,
		// The author of tracker/jira's comment_created fixture.
		developers: []string{"5b10a2844c20165700ede21g"}, admins: "admin-account"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *jiraAPI) addIssue(key, summary, description string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issues[key] = [2]string{summary, description}
}

func (f *jiraAPI) commentsOf(key string) (ids []string, versions map[string][]*adf.Node, invalid []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	versions = map[string][]*adf.Node{}
	for _, id := range f.comments[key] {
		versions[id] = append([]*adf.Node(nil), f.versions[id]...)
	}
	return append([]string(nil), f.comments[key]...), versions, append([]string(nil), f.invalid...)
}

func (f *jiraAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != f.auth {
		ghWrite(w, 401, map[string]any{"errorMessages": []string{"Client must be authenticated to access this resource."}})
		return
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/rest/api/3"), "/"), "/")
	if f.serveAccess(w, r, parts) {
		return
	}
	if len(parts) < 2 || parts[0] != "issue" {
		ghWrite(w, 404, map[string]any{"errorMessages": []string{"not found"}})
		return
	}
	key := parts[1]
	is, ok := f.issues[key]
	if !ok {
		ghWrite(w, 404, map[string]any{"errorMessages": []string{"Issue does not exist or you do not have permission to see it."}})
		return
	}
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet:
		ghWrite(w, 200, map[string]any{"key": key, "fields": map[string]any{"summary": is[0], "description": adf.FromMarkdown(is[1]),
			"labels": []string{}, "reporter": map[string]string{"accountId": "5b10ac8d82e05b22cc7d4ef5", "displayName": "Ada Lovelace"}}})
	case len(parts) == 3 && parts[2] == "comment" && r.Method == http.MethodGet:
		out := []any{}
		for _, id := range f.comments[key] {
			out = append(out, f.commentJSON(id))
		}
		ghWrite(w, 200, map[string]any{"startAt": 0, "maxResults": 100, "total": len(out), "comments": out})
	case len(parts) == 3 && parts[2] == "comment" && r.Method == http.MethodPost:
		doc, ok := f.body(w, r)
		if !ok {
			return
		}
		f.nextID++
		id := strconv.Itoa(f.nextID)
		f.comments[key] = append(f.comments[key], id)
		f.versions[id] = []*adf.Node{doc}
		ghWrite(w, 201, f.commentJSON(id))
	case len(parts) == 4 && parts[2] == "comment" && r.Method == http.MethodPut:
		if _, ok := f.versions[parts[3]]; !ok {
			ghWrite(w, 404, map[string]any{"errorMessages": []string{"comment not found"}})
			return
		}
		doc, ok := f.body(w, r)
		if !ok {
			return
		}
		f.versions[parts[3]] = append(f.versions[parts[3]], doc)
		ghWrite(w, 200, f.commentJSON(parts[3]))
	default:
		ghWrite(w, 404, map[string]any{"errorMessages": []string{"not found"}})
	}
}

// serveAccess answers GET /myself, /user/groups and project SHOP's roles
// (Administrators: the group jira-administrators; Developers: the
// developers), as Jira Cloud does.
func (f *jiraAPI) serveAccess(w http.ResponseWriter, r *http.Request, parts []string) bool {
	base := f.srv.URL + "/rest/api/3/project/SHOP/role/"
	switch p := strings.Join(parts, "/"); {
	case p == "myself":
		ghWrite(w, 200, map[string]string{"accountId": "relay-bot-account", "displayName": "relay"})
	case p == "user/groups":
		groups := []any{}
		if r.URL.Query().Get("accountId") == f.admins {
			groups = append(groups, map[string]string{"name": "jira-administrators", "groupId": "g1"})
		}
		ghWrite(w, 200, groups)
	case p == "project/SHOP/role":
		ghWrite(w, 200, map[string]string{"Administrators": base + "10002", "Developers": base + "10001", "Viewers": base + "10003"})
	case p == "project/SHOP/role/10001":
		actors := []any{}
		for _, id := range f.developers {
			actors = append(actors, map[string]any{"type": "atlassian-user-role-actor", "actorUser": map[string]string{"accountId": id}})
		}
		ghWrite(w, 200, map[string]any{"name": "Developers", "actors": actors})
	case p == "project/SHOP/role/10002":
		ghWrite(w, 200, map[string]any{"name": "Administrators", "actors": []any{
			map[string]any{"type": "atlassian-group-role-actor", "name": "jira-administrators", "actorGroup": map[string]string{"name": "jira-administrators"}}}})
	case p == "project/SHOP/role/10003":
		ghWrite(w, 200, map[string]any{"name": "Viewers", "actors": []any{}})
	default:
		return false
	}
	return true
}

// body decodes and validates a comment's ADF body, answering 400 as Jira
// does when it is not a valid document.
func (f *jiraAPI) body(w http.ResponseWriter, r *http.Request) (*adf.Node, bool) {
	var req struct {
		Body *adf.Node `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == nil {
		f.invalid = append(f.invalid, fmt.Sprintf("decode: %v", err))
		ghWrite(w, 400, map[string]any{"errorMessages": []string{"Comment body is not valid"}})
		return nil, false
	}
	if err := adf.Validate(req.Body); err != nil {
		f.invalid = append(f.invalid, err.Error())
		ghWrite(w, 400, map[string]any{"errorMessages": []string{"INVALID_INPUT: " + err.Error()}})
		return nil, false
	}
	return req.Body, true
}

func (f *jiraAPI) commentJSON(id string) map[string]any {
	v := f.versions[id]
	return map[string]any{"id": id, "body": v[len(v)-1], "created": "2024-06-01T12:00:00.000+0000",
		"author": map[string]string{"accountId": "relay-bot-account", "displayName": "relay", "accountType": "app"}}
}
