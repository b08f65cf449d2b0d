package github

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
)

// fakeGitHub is an httptest fake of the slice of GitHub's REST API that the
// client uses, served under a GitHub Enterprise prefix (/api/v3/). It pages
// comments pageSize at a time with Link headers, as GitHub does, checks
// credentials, and can answer scripted failures.
type fakeGitHub struct {
	srv      *httptest.Server
	pageSize int

	mu       sync.Mutex
	token    string         // accepted bearer token for repository calls
	appKey   *rsa.PublicKey // verifies app JWTs when set
	appID    int64
	issues   map[string]fakeIssue     // "owner/name#n"
	comments map[string][]fakeComment // "owner/name#n"
	nextID   int64
	fail     []fakeFailure
	calls    []string // "METHOD path"
	tokens   int      // installation tokens issued
}

type fakeIssue struct {
	Title, Body, Author string
	Labels              []string
}

type fakeComment struct {
	ID      int64
	Body    string
	Login   string
	Type    string // "User" or "Bot"
	Created time.Time
}

// fakeFailure answers the next request whose "METHOD path" contains match.
type fakeFailure struct {
	match  string
	status int
	header map[string]string
	body   string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{
		pageSize: 3,
		token:    "ghp_test_token",
		issues:   map[string]fakeIssue{},
		comments: map[string][]fakeComment{},
		nextID:   1000,
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) baseURL() string { return f.srv.URL + "/api/v3/" }

func (f *fakeGitHub) addComment(key, login, typ, body string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	f.comments[key] = append(f.comments[key], fakeComment{ID: f.nextID, Body: body, Login: login, Type: typ,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(f.nextID) * time.Minute)})
	return f.nextID
}

func (f *fakeGitHub) failNext(ff fakeFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, ff)
}

func (f *fakeGitHub) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/api/v3")
	call := r.Method + " " + path
	f.calls = append(f.calls, call)
	for i, ff := range f.fail {
		if strings.Contains(call, ff.match) {
			f.fail = append(f.fail[:i], f.fail[i+1:]...)
			for k, v := range ff.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ff.status)
			_, _ = w.Write([]byte(ff.body))
			return
		}
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	// App endpoints: authenticated by the app's JWT.
	if len(parts) >= 1 && parts[0] == "app" || len(parts) == 4 && parts[3] == "installation" {
		if err := f.checkJWT(auth); err != nil {
			writeJSON(w, 401, map[string]string{"message": "A JSON web token could not be decoded: " + err.Error()})
			return
		}
		switch {
		case len(parts) == 4 && parts[0] == "app" && parts[3] == "access_tokens" && r.Method == http.MethodPost:
			f.tokens++
			f.token = fmt.Sprintf("ghs_installation_%s_%d", parts[2], f.tokens)
			writeJSON(w, 201, map[string]any{"token": f.token, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		case parts[0] == "repos":
			writeJSON(w, 200, map[string]any{"id": 77})
		default:
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
		}
		return
	}
	if auth != f.token {
		writeJSON(w, 401, map[string]string{"message": "Bad credentials"})
		return
	}
	// repos/{o}/{r}/issues/{n}[/comments] and repos/{o}/{r}/issues/comments/{id}
	if len(parts) < 5 || parts[0] != "repos" || parts[3] != "issues" {
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
		return
	}
	repo := parts[1] + "/" + parts[2]
	switch {
	case len(parts) == 6 && parts[4] == "comments" && r.Method == http.MethodPatch:
		id, _ := strconv.ParseInt(parts[5], 10, 64)
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		for key, cs := range f.comments {
			for i, c := range cs {
				if c.ID == id && strings.HasPrefix(key, repo+"#") {
					cs[i].Body = req.Body
					writeJSON(w, 200, f.commentJSON(cs[i]))
					return
				}
			}
		}
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	case len(parts) == 5 && r.Method == http.MethodGet:
		is, ok := f.issues[repo+"#"+parts[4]]
		if !ok {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		labels := []map[string]string{}
		for _, l := range is.Labels {
			labels = append(labels, map[string]string{"name": l})
		}
		n, _ := strconv.Atoi(parts[4])
		writeJSON(w, 200, map[string]any{"number": n, "title": is.Title, "body": is.Body, "labels": labels,
			"html_url": "https://github.example/" + repo + "/issues/" + parts[4], "user": map[string]string{"login": is.Author}})
	case len(parts) == 6 && parts[5] == "comments" && r.Method == http.MethodGet:
		f.listComments(w, r, repo+"#"+parts[4])
	case len(parts) == 6 && parts[5] == "comments" && r.Method == http.MethodPost:
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.nextID++
		c := fakeComment{ID: f.nextID, Body: req.Body, Login: "relay-bot", Type: "User", Created: time.Now()}
		f.comments[repo+"#"+parts[4]] = append(f.comments[repo+"#"+parts[4]], c)
		writeJSON(w, 201, f.commentJSON(c))
	default:
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	}
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request, key string) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > f.pageSize {
		per = f.pageSize
	}
	all := f.comments[key]
	last := max((len(all)+per-1)/per, 1)
	var out []any
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, f.commentJSON(all[i]))
	}
	link := func(p int, rel string) string {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		u.RawQuery = q.Encode()
		return fmt.Sprintf(`<%s%s>; rel="%s"`, f.srv.URL, u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	if out == nil {
		out = []any{}
	}
	writeJSON(w, 200, out)
}

func (f *fakeGitHub) commentJSON(c fakeComment) map[string]any {
	return map[string]any{"id": c.ID, "body": c.Body, "created_at": c.Created.Format(time.RFC3339),
		"user": map[string]string{"login": c.Login, "type": c.Type}}
}

func (f *fakeGitHub) checkJWT(s string) error {
	if f.appKey == nil {
		return fmt.Errorf("no app configured")
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(s, &claims, func(*jwt.Token) (any, error) { return f.appKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer(strconv.FormatInt(f.appID, 10)), jwt.WithIssuedAt())
	return err
}
