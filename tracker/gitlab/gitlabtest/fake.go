// Package gitlabtest is an httptest fake of the slice of GitLab's REST API
// (v4) that tracker/gitlab uses — the current user, projects, inherited
// project members, issues and their notes — for the tests of
// tracker/gitlab and of the bot (package serve) that run the real client
// against it. It checks the PRIVATE-TOKEN header, resolves a project by
// its URL-escaped path or its id as GitLab does, pages notes with
// X-Next-Page headers, keeps every version of every note, and can answer
// scripted failures.
package gitlabtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fake is the fake GitLab. Its methods are safe for concurrent use.
type Fake struct {
	srv *httptest.Server
	// PageSize is the most notes one page holds; default 2, so that
	// paging is exercised.
	PageSize int

	mu       sync.Mutex
	token    string
	user     User
	projects map[string]*project // by lower-cased path
	nextID   int64
	fail     []Failure
	calls    []string
}

// User is a GitLab account.
type User struct {
	ID       int64
	Username string
	Admin    bool
}

// Note is one note and every body it has had, oldest first.
type Note struct {
	ID       int64
	Author   string
	System   bool
	Internal bool // only members may read it
	Versions []string
}

// Failure answers the next request whose "METHOD path" contains Match.
type Failure struct {
	Match  string
	Status int
	Header map[string]string
	Body   string
}

type project struct {
	id      int64
	path    string
	members map[int64]int    // user id → access level
	states  map[int64]string // user id → membership state other than active
	issues  map[int64]*issue
	mrs     map[int64]*issue // merge requests: their notes are served as an issue's
}

type issue struct {
	title, body, author string
	labels              []string
	notes               []*Note
}

// New starts a fake GitLab that accepts token and authenticates it as
// user; it stops when the test ends.
func New(t testing.TB, token string, user User) *Fake {
	f := &Fake{PageSize: 2, token: token, user: user, projects: map[string]*project{}, nextID: 5000}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the instance's base URL (the client adds /api/v4).
func (f *Fake) URL() string { return f.srv.URL }

// AddProject adds a project by its path (group/name) with the token's
// user as a member at level (30 Developer, 20 Reporter, …; 0: no member).
func (f *Fake) AddProject(path string, level int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	p := &project{id: f.nextID, path: path, members: map[int64]int{}, states: map[int64]string{}, issues: map[int64]*issue{}, mrs: map[int64]*issue{}}
	if level > 0 {
		p.members[f.user.ID] = level
	}
	f.projects[strings.ToLower(path)] = p
}

// AddMember makes user id a member of the project at level.
func (f *Fake) AddMember(path string, id int64, level int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.projects[strings.ToLower(path)].members[id] = level
}

// SetMemberState sets a member's state ("blocked", "awaiting"; default
// "active").
func (f *Fake) SetMemberState(path string, id int64, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.projects[strings.ToLower(path)].states[id] = state
}

// AddIssue adds issue iid to the project.
func (f *Fake) AddIssue(path string, iid int64, title, body string, labels ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.projects[strings.ToLower(path)].issues[iid] = &issue{title: title, body: body, author: "alice", labels: labels}
}

// AddMergeRequest adds merge request iid to the project; its notes are
// listed, created and edited as an issue's are.
func (f *Fake) AddMergeRequest(path string, iid int64, title string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.projects[strings.ToLower(path)].mrs[iid] = &issue{title: title, author: "alice"}
}

// MergeRequestNotes returns copies of a merge request's notes.
func (f *Fake) MergeRequestNotes(path string, iid int64) []Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	return copyNotes(f.projects[strings.ToLower(path)].mrs[iid].notes)
}

// AddNote adds a note to an issue and returns its id.
func (f *Fake) AddNote(path string, iid int64, author, body string, system bool) int64 {
	return f.addNote(path, iid, &Note{Author: author, System: system, Versions: []string{body}})
}

// AddInternalNote adds an internal note, which only members may read.
func (f *Fake) AddInternalNote(path string, iid int64, author, body string) int64 {
	return f.addNote(path, iid, &Note{Author: author, Internal: true, Versions: []string{body}})
}

func (f *Fake) addNote(path string, iid int64, n *Note) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	n.ID = f.nextID
	is := f.projects[strings.ToLower(path)].issues[iid]
	is.notes = append(is.notes, n)
	return f.nextID
}

// DeleteNote removes a note, as a person deleting it would.
func (f *Fake) DeleteNote(path string, iid, id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	is := f.projects[strings.ToLower(path)].issues[iid]
	is.notes = slices.DeleteFunc(is.notes, func(n *Note) bool { return n.ID == id })
}

// Notes returns copies of an issue's notes.
func (f *Fake) Notes(path string, iid int64) []Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	return copyNotes(f.projects[strings.ToLower(path)].issues[iid].notes)
}

func copyNotes(notes []*Note) []Note {
	var out []Note
	for _, n := range notes {
		c := *n
		c.Versions = slices.Clone(n.Versions)
		out = append(out, c)
	}
	return out
}

// FailNext scripts the answer to the next request that matches.
func (f *Fake) FailNext(ff Failure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, ff)
}

// Calls returns every request served, as "METHOD path".
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter, what string) {
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 " + what + " Not Found"})
}

// segments splits the escaped path after /api/v4 and unescapes each
// segment, so that a project path escaped as group%2Fname stays one.
func segments(r *http.Request) ([]string, bool) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/v4/")
	if !ok {
		return nil, false
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts, ok := segments(r)
	call := r.Method + " /" + strings.Join(parts, "/")
	f.calls = append(f.calls, call)
	for i, ff := range f.fail {
		if strings.Contains(call, ff.Match) {
			f.fail = slices.Delete(f.fail, i, i+1)
			for k, v := range ff.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ff.Status)
			_, _ = w.Write([]byte(ff.Body))
			return
		}
	}
	if r.Header.Get("PRIVATE-TOKEN") != f.token {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "401 Unauthorized"})
		return
	}
	switch {
	case !ok || len(parts) == 0:
		notFound(w, "Route")
	case len(parts) == 1 && parts[0] == "user" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": f.user.ID, "username": f.user.Username, "is_admin": f.user.Admin, "bot": true})
	case parts[0] == "projects" && len(parts) >= 2:
		p := f.project(parts[1])
		if p == nil {
			notFound(w, "Project")
			return
		}
		f.serveProject(w, r, p, parts[2:])
	default:
		notFound(w, "Route")
	}
}

// project finds a project by path or numeric id.
func (f *Fake) project(idOrPath string) *project {
	if p, ok := f.projects[strings.ToLower(idOrPath)]; ok {
		return p
	}
	id, err := strconv.ParseInt(idOrPath, 10, 64)
	if err != nil {
		return nil
	}
	for _, p := range f.projects {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (f *Fake) serveProject(w http.ResponseWriter, r *http.Request, p *project, rest []string) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": p.id, "path_with_namespace": p.path, "default_branch": "main"})
	case len(rest) == 3 && rest[0] == "members" && rest[1] == "all" && r.Method == http.MethodGet:
		id, _ := strconv.ParseInt(rest[2], 10, 64)
		level, ok := p.members[id]
		if !ok {
			notFound(w, "Member")
			return
		}
		state := p.states[id]
		if state == "" {
			state = "active"
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "username": fmt.Sprintf("user%d", id), "state": state, "access_level": level})
	case len(rest) >= 2 && rest[0] == "merge_requests":
		iid, _ := strconv.ParseInt(rest[1], 10, 64)
		mr := p.mrs[iid]
		if mr == nil {
			notFound(w, "Merge Request")
			return
		}
		f.serveIssue(w, r, p, iid, mr, rest[2:])
	case len(rest) >= 2 && rest[0] == "issues":
		iid, _ := strconv.ParseInt(rest[1], 10, 64)
		is := p.issues[iid]
		if is == nil {
			notFound(w, "Issue")
			return
		}
		f.serveIssue(w, r, p, iid, is, rest[2:])
	default:
		notFound(w, "Route")
	}
}

func (f *Fake) serveIssue(w http.ResponseWriter, r *http.Request, p *project, iid int64, is *issue, rest []string) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": p.id*1000 + iid, "iid": iid, "project_id": p.id, "title": is.title, "description": is.body,
			"labels": is.labels, "web_url": fmt.Sprintf("%s/%s/-/issues/%d", f.srv.URL, p.path, iid),
			"author": map[string]any{"username": is.author}})
	case len(rest) == 1 && rest[0] == "notes" && r.Method == http.MethodGet:
		f.listNotes(w, r, is)
	case len(rest) == 1 && rest[0] == "notes" && r.Method == http.MethodPost:
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.nextID++
		n := &Note{ID: f.nextID, Author: f.user.Username, Versions: []string{req.Body}}
		is.notes = append(is.notes, n)
		writeJSON(w, http.StatusCreated, noteJSON(n))
	case len(rest) == 2 && rest[0] == "notes" && r.Method == http.MethodPut:
		id, _ := strconv.ParseInt(rest[1], 10, 64)
		var req struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		for _, n := range is.notes {
			if n.ID == id {
				n.Versions = append(n.Versions, req.Body)
				writeJSON(w, http.StatusOK, noteJSON(n))
				return
			}
		}
		notFound(w, "Note")
	default:
		notFound(w, "Route")
	}
}

// listNotes pages an issue's notes, oldest first when asked for sort=asc
// and newest first otherwise, as GitLab does.
func (f *Fake) listNotes(w http.ResponseWriter, r *http.Request, is *issue) {
	q := r.URL.Query()
	page := max(atoi(q.Get("page")), 1)
	per := atoi(q.Get("per_page"))
	if size := max(f.PageSize, 1); per <= 0 || per > size {
		per = size
	}
	all := slices.Clone(is.notes)
	if q.Get("sort") != "asc" {
		slices.Reverse(all)
	}
	out := []any{}
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, noteJSON(all[i]))
	}
	if page*per < len(all) {
		w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
	}
	w.Header().Set("X-Page", strconv.Itoa(page))
	w.Header().Set("X-Per-Page", strconv.Itoa(per))
	writeJSON(w, http.StatusOK, out)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// noteJSON renders a note; created_at grows with the id, so the order of
// creation is the order of ids.
func noteJSON(n *Note) map[string]any {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(n.ID) * time.Second)
	return map[string]any{"id": n.ID, "body": n.Versions[len(n.Versions)-1], "system": n.System, "internal": n.Internal, "confidential": n.Internal, "noteable_type": "Issue",
		"created_at": created.Format(time.RFC3339), "author": map[string]any{"username": n.Author}}
}
