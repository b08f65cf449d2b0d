package jira

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/adf"
)

// fakeJira is an httptest fake of the Jira REST endpoints the client uses,
// for Cloud (v3, ADF bodies, basic auth) or Data Center (v2, wiki strings,
// bearer PAT), under a context path (/jira). Comments page pageSize at a
// time, as Jira's startAt/maxResults paging does.
type fakeJira struct {
	t        *testing.T
	srv      *httptest.Server
	cloud    bool
	auth     string
	pageSize int

	mu          sync.Mutex
	description json.RawMessage
	comments    []fakeJiraComment
	nextID      int
	fail        []jiraFailure
	calls       []string
}

type fakeJiraComment struct {
	ID     string
	Author map[string]string
	Body   json.RawMessage // ADF object (Cloud) or JSON string (DC)
}

type jiraFailure struct {
	match  string
	status int
	header map[string]string
	body   string
}

const (
	cloudEmail, cloudToken = "bot@acme.example", "atlassian-api-token-secret"
	dcPAT                  = "dc-personal-access-token-secret"
)

func newFakeJira(t *testing.T, cloud bool) *fakeJira {
	f := &fakeJira{t: t, cloud: cloud, pageSize: 2, nextID: 10000}
	if cloud {
		f.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(cloudEmail+":"+cloudToken))
		f.description = json.RawMessage(`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Two SMS per "},{"type":"text","text":"order","marks":[{"type":"strong"}]}]}]}`)
	} else {
		f.auth = "Bearer " + dcPAT
		f.description = json.RawMessage(`"Two SMS per *order*"`)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeJira) client(t *testing.T, bot string) *Client {
	t.Helper()
	o := Options{BaseURL: f.srv.URL + "/jira/", Cloud: f.cloud, BotAccount: bot}
	if f.cloud {
		o.Email, o.APIToken = cloudEmail, cloudToken
	} else {
		o.PAT = dcPAT
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// body encodes text as the instance's comment body.
func (f *fakeJira) body(text string) json.RawMessage {
	var v any = text
	if f.cloud {
		v = adf.FromMarkdown(text)
	}
	b, _ := json.Marshal(v)
	return b
}

func (f *fakeJira) addComment(author map[string]string, text string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id := strconv.Itoa(f.nextID)
	f.comments = append(f.comments, fakeJiraComment{ID: id, Author: author, Body: f.body(text)})
	return id
}

func (f *fakeJira) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeJira) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	api := "/jira/rest/api/2/"
	if f.cloud {
		api = "/jira/rest/api/3/"
	}
	call := r.Method + " " + r.URL.Path
	f.calls = append(f.calls, call)
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	for i, ff := range f.fail {
		if strings.Contains(call, ff.match) {
			f.fail = append(f.fail[:i], f.fail[i+1:]...)
			for k, v := range ff.header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(ff.status)
			_, _ = w.Write([]byte(ff.body))
			return
		}
	}
	if r.Header.Get("Authorization") != f.auth {
		reply(401, map[string]any{"errorMessages": []string{"You are not authenticated."}})
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, api+"issue/")
	if !ok {
		reply(404, map[string]any{"errorMessages": []string{"wrong API version or path: " + r.URL.Path}})
		return
	}
	parts := strings.Split(rest, "/")
	if parts[0] != "SHOP-42" {
		reply(404, map[string]any{"errorMessages": []string{"Issue does not exist or you do not have permission to see it."}})
		return
	}
	switch {
	case len(parts) == 1 && r.Method == http.MethodGet:
		reply(200, map[string]any{"key": "SHOP-42", "fields": map[string]any{
			"summary": "Customers receive the same SMS twice", "description": f.description,
			"labels": []string{"payments"}, "reporter": map[string]string{"displayName": "Ada Lovelace"}}})
	case len(parts) == 2 && parts[1] == "comment" && r.Method == http.MethodGet:
		start, _ := strconv.Atoi(r.URL.Query().Get("startAt"))
		per, _ := strconv.Atoi(r.URL.Query().Get("maxResults"))
		per = min(max(per, 1), f.pageSize)
		var page []any
		for i := start; i < min(start+per, len(f.comments)); i++ {
			c := f.comments[i]
			page = append(page, map[string]any{"id": c.ID, "author": c.Author, "body": c.Body, "created": "2024-06-01T12:00:00.000+0000"})
		}
		reply(200, map[string]any{"startAt": start, "maxResults": per, "total": len(f.comments), "comments": page})
	case len(parts) == 2 && parts[1] == "comment" && r.Method == http.MethodPost:
		body, ok := f.readBody(w, r)
		if !ok {
			return
		}
		f.nextID++
		c := fakeJiraComment{ID: strconv.Itoa(f.nextID), Author: map[string]string{"accountId": "bot-1", "name": "relay-bot", "displayName": "Relay"}, Body: body}
		f.comments = append(f.comments, c)
		reply(201, map[string]any{"id": c.ID})
	case len(parts) == 3 && parts[1] == "comment" && r.Method == http.MethodPut:
		body, ok := f.readBody(w, r)
		if !ok {
			return
		}
		for i := range f.comments {
			if f.comments[i].ID == parts[2] {
				f.comments[i].Body = body
				reply(200, map[string]any{"id": parts[2]})
				return
			}
		}
		reply(404, map[string]any{"errorMessages": []string{"Can not find a comment for the id: " + parts[2] + "."}})
	default:
		reply(405, map[string]any{"errorMessages": []string{"unexpected " + call}})
	}
}

// readBody checks a comment body the way Jira would: ADF that follows the
// structural rules on Cloud, a string on Data Center.
func (f *fakeJira) readBody(w http.ResponseWriter, r *http.Request) (json.RawMessage, bool) {
	var req struct{ Body json.RawMessage }
	err := json.NewDecoder(r.Body).Decode(&req)
	if err == nil && f.cloud {
		var doc *adf.Node
		if doc, err = adf.Parse(req.Body); err == nil {
			err = adf.Validate(doc)
		}
	} else if err == nil {
		var s string
		err = json.Unmarshal(req.Body, &s)
	}
	if err != nil {
		w.WriteHeader(400)
		_, _ = fmt.Fprintf(w, `{"errorMessages":["INVALID_INPUT"],"errors":{"comment":%q}}`, err.Error())
		return nil, false
	}
	return req.Body, true
}

var shop42 = tracker.Ref{Source: tracker.Jira, Repo: "SHOP", Number: "SHOP-42"}

func TestFetch(t *testing.T) {
	t.Parallel()
	for _, cloud := range []bool{true, false} {
		t.Run(map[bool]string{true: "cloud", false: "datacenter"}[cloud], func(t *testing.T) {
			t.Parallel()
			f := newFakeJira(t, cloud)
			ada := map[string]string{"accountId": "a-1", "name": "ada", "displayName": "Ada Lovelace"}
			bot := map[string]string{"accountId": "bot-1", "name": "relay-bot", "displayName": "Relay"}
			f.addComment(ada, "Seen twice on order 17.")
			f.addComment(map[string]string{"accountId": "app-1", "displayName": "Automation", "accountType": "app"}, "Triaged.")
			c := f.client(t, "relay-bot")
			if _, err := c.UpsertReport(t.Context(), shop42, "# Report\n\nOld."); err != nil {
				t.Fatal(err)
			}
			f.addComment(bot, "Not a report, but the bot wrote it.")
			f.addComment(ada, "Any news?")
			got, err := c.Fetch(t.Context(), shop42)
			if err != nil {
				t.Fatal(err)
			}
			body := "Two SMS per **order**"
			if !cloud {
				body = "Two SMS per *order*" // wiki markup as Data Center stores it
			}
			want := tracker.Issue{
				Ref: shop42, Title: "Customers receive the same SMS twice", Body: body, URL: f.srv.URL + "/jira/browse/SHOP-42",
				Author: "Ada Lovelace", Labels: []string{"payments"},
				Comments: []tracker.Comment{
					{Author: "Ada Lovelace", Body: "Seen twice on order 17."},
					{Author: "Automation", Bot: true, Body: "Triaged."}, // an app account
					{Author: "Relay", Bot: true, Body: "Not a report, but the bot wrote it."},
					{Author: "Ada Lovelace", Body: "Any news?"},
				},
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(tracker.Comment{}, "ID", "Created")); diff != "" {
				t.Errorf("Fetch (-want +got):\n%s", diff)
			}
			if got.Comments[0].Created.IsZero() {
				t.Error("comment creation time not parsed")
			}
			pages := 0
			for _, call := range f.callLog() {
				if strings.HasSuffix(call, "/issue/SHOP-42/comment") && strings.HasPrefix(call, "GET") {
					pages++
				}
			}
			if pages < 4 { // one listing by UpsertReport (3 comments: 2 pages), three by Fetch (5 comments)
				t.Errorf("%d comment pages listed, want paging", pages)
			}
		})
	}
}

func TestUpsertReportEditsInPlace(t *testing.T) {
	t.Parallel()
	for _, cloud := range []bool{true, false} {
		t.Run(map[bool]string{true: "cloud", false: "datacenter"}[cloud], func(t *testing.T) {
			t.Parallel()
			f := newFakeJira(t, cloud)
			for i := range 5 {
				f.addComment(map[string]string{"name": "user" + strconv.Itoa(i)}, "comment")
			}
			// Someone else's comment ending in the marker is not the report.
			f.addComment(map[string]string{"name": "mallory", "displayName": "Mallory"}, "fake\n\nrelay:report")
			c := f.client(t, "relay-bot")
			ctx := t.Context()
			id1, err := c.UpsertReport(ctx, shop42, "Scoping…")
			if err != nil {
				t.Fatal(err)
			}
			id2, err := c.UpsertReport(ctx, shop42, "# Scoping: SMS\n\n- `notify.Send` retries\n\n```go\nSend()\n```")
			if err != nil {
				t.Fatal(err)
			}
			if id1 != id2 {
				t.Errorf("ids %s then %s: the report was not edited in place", id1, id2)
			}
			var reports []fakeJiraComment
			for _, cm := range f.comments {
				if cm.Author["name"] == "relay-bot" {
					reports = append(reports, cm)
				}
			}
			if len(reports) != 1 {
				t.Fatalf("%d report comments, want 1", len(reports))
			}
			got, err := text(reports[0].Body)
			if err != nil {
				t.Fatal(err)
			}
			want := "# Scoping: SMS\n\n- `notify.Send` retries\n\n```go\nSend()\n```\n\nrelay:report"
			if !cloud {
				want = "h1. Scoping: SMS\n\n* {{notify.Send}} retries\n\n{code:go}\nSend()\n{code}\n\n" + wikiMarker
			}
			if got != want {
				t.Errorf("report body:\n%s\nwant:\n%s", got, want)
			}
			if !hasMarker(got) {
				t.Error("the posted report does not carry the marker")
			}
		})
	}
}

func TestUpsertReportRecreatesADeletedReport(t *testing.T) {
	t.Parallel()
	f := newFakeJira(t, true)
	c := f.client(t, "")
	id1, err := c.UpsertReport(t.Context(), shop42, "first")
	if err != nil {
		t.Fatal(err)
	}
	f.fail = append(f.fail, jiraFailure{match: "PUT /jira/rest/api/3/issue/SHOP-42/comment/", status: 404, body: `{"errorMessages":["gone"]}`})
	id2, err := c.UpsertReport(t.Context(), shop42, "second")
	if err != nil {
		t.Fatal(err)
	}
	if id1 == id2 {
		t.Errorf("kept the deleted comment id %s", id1)
	}
}

func TestErrorsAndRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failure   jiraFailure
		retryable bool
		after     time.Duration
		say       string
	}{
		{"429 with Retry-After", jiraFailure{status: 429, header: map[string]string{"Retry-After": "5"}, body: `{"errorMessages":["Rate limit exceeded."]}`}, true, 5 * time.Second, "Rate limit exceeded"},
		{"503 with Retry-After date", jiraFailure{status: 503, header: map[string]string{"Retry-After": time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}, body: "<html>maintenance</html>"}, true, 90 * time.Second, "maintenance"},
		{"500", jiraFailure{status: 500, body: `{"errorMessages":["Internal server error"]}`}, true, 0, "Internal server error"},
		{"404", jiraFailure{status: 404, body: `{"errorMessages":["Issue does not exist or you do not have permission to see it."]}`}, false, 0, "no such issue"},
		{"401", jiraFailure{status: 401, body: `{}`}, false, 0, "JIRA_API_TOKEN"},
		{"403", jiraFailure{status: 403, body: `{"errors":{"comment":"no permission"}}`}, false, 0, "comment: no permission"},
		// A login page answered with 200 read "invalid character '<'".
		{"200 HTML page", jiraFailure{status: 200, body: "<!DOCTYPE html><html>Log in</html>"}, false, 0, "the answer is an HTML page, not Jira's JSON: check JIRA_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeJira(t, true)
			tt.failure.match = "GET /jira/rest/api/3/issue/SHOP-42"
			f.fail = append(f.fail, tt.failure)
			_, err := f.client(t, "").Fetch(t.Context(), shop42)
			if err == nil {
				t.Fatal("Fetch succeeded through a failure")
			}
			ok, after := tracker.Retryable(err)
			if ok != tt.retryable {
				t.Fatalf("Retryable(%v) = %v, want %v", err, ok, tt.retryable)
			}
			if d := after - tt.after; d < -2*time.Second || d > 2*time.Second {
				t.Errorf("After = %v, want about %v", after, tt.after)
			}
			if !strings.Contains(err.Error(), tt.say) {
				t.Errorf("error %q does not say %q", err, tt.say)
			}
			if strings.Contains(err.Error(), cloudToken) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(cloudEmail+":"+cloudToken))) {
				t.Errorf("error reveals the credentials: %v", err)
			}
		})
	}
}

func TestNetworkErrorIsRetryable(t *testing.T) {
	t.Parallel()
	f := newFakeJira(t, false)
	c := f.client(t, "")
	f.srv.Close()
	_, err := c.Fetch(t.Context(), shop42)
	if ok, _ := tracker.Retryable(err); !ok {
		t.Errorf("Fetch against a closed server: %v, want retryable", err)
	}
	if strings.Contains(err.Error(), dcPAT) {
		t.Errorf("error reveals the token: %v", err)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no URL", Options{PAT: "x"}, "not an http(s) URL"},
		{"not http", Options{BaseURL: "ftp://jira", PAT: "x"}, "not an http(s) URL"},
		{"no credentials", Options{BaseURL: "https://a.atlassian.net"}, "no credentials"},
		{"e-mail without token", Options{BaseURL: "https://a.atlassian.net", Email: "a@b"}, "needs both"},
		{"both kinds", Options{BaseURL: "https://a.atlassian.net", Email: "a@b", APIToken: "t", PAT: "p"}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestRefChecks(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "https://a.atlassian.net", PAT: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []tracker.Ref{{Source: tracker.GitHub, Repo: "a/b", Number: "1"}, {Source: tracker.Jira, Repo: "A", Number: "a-1"}} {
		if _, err := c.Fetch(t.Context(), ref); err == nil {
			t.Errorf("Fetch(%v) accepted a bad reference", ref)
		}
	}
}

func TestHasMarker(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		"report\n\nrelay:report":                 true,
		"report\n\n" + wikiMarker + "\n":         true,
		"report\n" + tracker.ReportMarker:        true,
		"relay:report is the marker, says a man": false,
		"see relay:report\nthen more":            false,
		"":                                       false,
	} {
		if got := hasMarker(body); got != want {
			t.Errorf("hasMarker(%q) = %v, want %v", body, got, want)
		}
	}
}
