package serve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tracker/github"
)

// fakeApp is an httptest fake of the GitHub REST API an App uses: its
// installations (as the App, by JWT), installation tokens, each
// installation's repositories (as the installation, by its token), issues
// and their comments. The real go-github client drives it.
type fakeApp struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	accounts map[int64]string            // installation id → account
	repos    map[int64][]fakeAppRepo     // installation id → repositories
	comments map[string][]fakeAppComment // "owner/name#n" → comments
	posters  map[string]map[int64]int    // "owner/name#n" → installation → posts
	minted   map[int64]int               // installation → tokens minted
	nextID   int64                       // comment ids
	pub      *rsa.PublicKey              // the App\'s key: JWTs are checked against it
}

type fakeAppRepo struct {
	FullName, Remote string
	Topics           []string
}

type fakeAppComment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
}

func newFakeApp(t testing.TB) *fakeApp {
	f := &fakeApp{t: t, accounts: map[int64]string{}, repos: map[int64][]fakeAppRepo{}, comments: map[string][]fakeAppComment{},
		posters: map[string]map[int64]int{}, minted: map[int64]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeApp) install(id int64, account string, repos ...fakeAppRepo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.accounts[id], f.repos[id] = account, append(f.repos[id], repos...)
}

func (f *fakeApp) remove(id int64, full string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keep []fakeAppRepo
	for _, r := range f.repos[id] {
		if r.FullName != full {
			keep = append(keep, r)
		}
	}
	f.repos[id] = keep
}

// uninstall removes installation id and its repositories.
func (f *fakeApp) uninstall(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.accounts, id)
	delete(f.repos, id)
}

// lastBody is the last comment's body on key.
func (f *fakeApp) lastBody(key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	cs := f.comments[key]
	if len(cs) == 0 {
		return ""
	}
	return cs[len(cs)-1].Body
}

// reportsBy counts the comments posted on key by each installation.
func (f *fakeApp) reportsBy(key string) map[int64]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int64]int{}
	for k, v := range f.posters[key] {
		out[k] = v
	}
	return out
}

func (f *fakeApp) write(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// caller reads the installation from an installation token, or says the
// caller is the App: a JWT signed with its key, issued by app 7.
func (f *fakeApp) caller(r *http.Request) (inst int64, app bool) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if id, ok := strings.CutPrefix(tok, "ghs_inst_"); ok {
		n, _ := strconv.ParseInt(id, 10, 64)
		return n, false
	}
	parsed, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return f.pub, nil }, jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer("7"))
	return 0, err == nil && parsed.Valid
}

// repo finds a repository and its installation.
func (f *fakeApp) repo(full string) (fakeAppRepo, int64, bool) {
	for id, rs := range f.repos {
		for _, r := range rs {
			if strings.EqualFold(r.FullName, full) {
				return r, id, true
			}
		}
	}
	return fakeAppRepo{}, 0, false
}

func (f *fakeApp) repoJSON(r fakeAppRepo) map[string]any {
	owner, name, _ := strings.Cut(r.FullName, "/")
	return map[string]any{"full_name": r.FullName, "name": name, "owner": map[string]any{"login": owner},
		"default_branch": "main", "clone_url": r.Remote, "topics": r.Topics}
}

func (f *fakeApp) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, jwt := f.caller(r)
	p := strings.TrimPrefix(r.URL.Path, "/api/v3")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	notFound := func() { f.write(w, http.StatusNotFound, map[string]string{"message": "Not Found"}) }
	switch {
	case strings.HasPrefix(p, "/app/") && !jwt:
		f.write(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
	case p == "/app/installations" && jwt:
		var out []map[string]any
		for id, acct := range f.accounts {
			out = append(out, map[string]any{"id": id, "account": map[string]any{"login": acct}})
		}
		f.write(w, http.StatusOK, out)
	case len(parts) == 4 && parts[0] == "app" && parts[3] == "access_tokens" && r.Method == http.MethodPost && jwt:
		id, _ := strconv.ParseInt(parts[2], 10, 64)
		if _, ok := f.accounts[id]; !ok {
			notFound()
			return
		}
		f.minted[id]++
		f.write(w, http.StatusCreated, map[string]any{"token": fmt.Sprintf("ghs_inst_%d", id), "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	case p == "/installation/repositories" && inst != 0:
		var out []map[string]any
		for _, rp := range f.repos[inst] {
			out = append(out, f.repoJSON(rp))
		}
		f.write(w, http.StatusOK, map[string]any{"total_count": len(out), "repositories": out})
	case len(parts) >= 3 && parts[0] == "repos":
		f.serveRepo(w, r, parts[1]+"/"+parts[2], parts[3:], inst, jwt)
	default:
		notFound()
	}
}

// serveRepo answers /repos/{owner}/{name}/…: only the installation that
// has the repository may read it or post on it.
func (f *fakeApp) serveRepo(w http.ResponseWriter, r *http.Request, full string, rest []string, inst int64, jwt bool) {
	rp, owner, ok := f.repo(full)
	switch {
	case !ok || (inst != owner && !(jwt && len(rest) == 1 && rest[0] == "installation")):
		f.write(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	case len(rest) == 0:
		f.write(w, http.StatusOK, f.repoJSON(rp))
	case len(rest) == 1 && rest[0] == "installation":
		f.write(w, http.StatusOK, map[string]any{"id": owner})
	case len(rest) == 2 && rest[0] == "issues":
		f.write(w, http.StatusOK, map[string]any{"number": json.Number(rest[1]), "title": "Issue " + rest[1], "body": "it breaks",
			"html_url": "https://github.com/" + full + "/issues/" + rest[1], "user": map[string]any{"login": "alice"}})
	case len(rest) == 3 && rest[0] == "issues" && rest[2] == "comments":
		key := full + "#" + rest[1]
		if r.Method == http.MethodGet {
			f.write(w, http.StatusOK, f.comments[key])
			return
		}
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.nextID++
		c := fakeAppComment{ID: 1000 + f.nextID, Body: req.Body}
		c.User.Login, c.User.Type = "relay[bot]", "Bot"
		f.comments[key] = append(f.comments[key], c)
		if f.posters[key] == nil {
			f.posters[key] = map[int64]int{}
		}
		f.posters[key][inst]++
		f.write(w, http.StatusCreated, c)
	case len(rest) == 3 && rest[0] == "issues" && rest[1] == "comments" && r.Method == http.MethodPatch:
		id, _ := strconv.ParseInt(rest[2], 10, 64)
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		for key, cs := range f.comments {
			for i := range cs {
				if cs[i].ID == id {
					cs[i].Body = req.Body
					f.posters[key][inst]++
					f.write(w, http.StatusOK, cs[i])
					return
				}
			}
		}
		f.write(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	default:
		f.write(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

// appKey makes the App's RSA key, whose public half the fake checks JWTs
// with, and returns it in PEM, as GitHub hands an App's key out.
func (f *fakeApp) appKey(t testing.TB) []byte {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.pub = &k.PublicKey
	f.mu.Unlock()
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// appClient is the real GitHub App client on the fake.
func (f *fakeApp) client(t testing.TB, key []byte) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{BaseURL: f.srv.URL + "/api/v3/", AppID: 7, PrivateKeyPEM: key, BotLogin: "relay[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ghAppDelivery signs a GitHub delivery (a published example, edited) as
// GitHub does.
func ghAppDelivery(t testing.TB, url, event, id string, payload any, secret []byte) *http.Request {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	req, err := http.NewRequest(http.MethodPost, url+"/webhooks/github", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	return req
}

// octokitIndex is GitHub's published webhook examples, installed by
// scripts/setup.sh (npm ci in tracker/github/testdata/webhooks).
var octokitIndex = filepath.Join("..", "tracker", "github", "testdata", "webhooks", "node_modules", "@octokit", "webhooks-examples", "api.github.com", "index.json")

// octokit returns the first published example of event and action, as JSON
// the test edits; it skips when the package is absent and fails under CI.
func octokit(t testing.TB, event, action string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(octokitIndex)
	if errors.Is(err, fs.ErrNotExist) {
		testutil.Missing(t, fmt.Sprintf("GitHub webhook examples not installed (%v)", err), "run scripts/setup.sh (needs npm)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var index []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	for _, w := range index {
		for _, raw := range w.Examples {
			var e map[string]any
			if w.Name == event && json.Unmarshal(raw, &e) == nil && e["action"] == action {
				return e
			}
		}
	}
	t.Fatalf("no %s.%s example in %s", event, action, octokitIndex)
	return nil
}
