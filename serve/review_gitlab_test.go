package serve

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/review"
	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

// glMergeRequest is GitLab's published Merge Request Hook payload for
// project's merge request iid by user 42: action, the head commit and the
// previous head (oldrev, "" for none).
func glMergeRequest(t testing.TB, id, project string, iid int, action, head, oldrev string) glDelivery {
	p := glExample(t, "merge_request.json")
	glObj(p, "project")["path_with_namespace"] = project
	a := glObj(p, "object_attributes")
	a["iid"], a["action"], a["target_branch"] = iid, action, "main"
	glObj(a, "last_commit")["id"] = head
	if oldrev != "" {
		a["oldrev"] = oldrev
	}
	glObj(p, "user")["id"], glObj(p, "user")["username"] = 42, "user1"
	return glDelivery{Event: "Merge Request Hook", ID: id, Token: glSecret, Payload: p}
}

// glReviewNote is the published Note Hook payload of a note on project's
// merge request iid by user.
func glReviewNote(t testing.TB, id, project string, iid int, body string, user int) glDelivery {
	p := glExample(t, "note_merge_request.json")
	glObj(p, "project")["path_with_namespace"] = project
	glObj(p, "merge_request")["iid"] = iid
	glObj(p, "object_attributes")["note"] = body
	glObj(p, "user")["id"], glObj(p, "user")["username"] = user, fmt.Sprintf("user%d", user)
	return glDelivery{Event: "Note Hook", ID: id, Token: glSecret, Payload: p}
}

// TestReviewBotGitLab: the real fix of TestReviewBotGitHub as merge
// request 3 (refs/merge-requests/3/head on a real git remote), through
// the real GitLab webhook parser and client against gitlabtest's fake:
// one review note at the head, edited in place by an update with new
// commits; a /relay review note from a guest (below
// gitlab.command_min_access) is refused, one from a developer runs again.
func TestReviewBotGitLab(t *testing.T) {
	pr := newRealPR(t, "refs/merge-requests/3/head")
	const project = "gson/gson"
	api := gitlabtest.New(t, glToken, glBot)
	api.AddProject(project, 30)
	api.AddMember(project, 42, 30) // a developer
	api.AddMember(project, 43, 10) // a guest
	api.AddMergeRequest(project, 3, "JsonWriter: lenient NaN")
	cfg := glConfig(t, api.URL(), Repository{GitLab: project, Remote: pr.remote, Branch: "main", Review: true})
	cfg.JobTimeout, cfg.RescueAfter = 3*time.Minute, 4*time.Minute
	trackers, parsers, err := BuildTrackers(cfg, glEnv)
	if err != nil {
		t.Fatal(err)
	}
	pipe := &Pipeline{KeyFile: filepath.Join(t.TempDir(), "store.key"), Log: slog.New(slog.DiscardHandler)}
	svc := startService(t, cfg, serviceDeps{trackers: trackers, parsers: parsers, permissions: Permissions(cfg, trackers),
		scoper: pipe, indexer: pipe})
	bodies := func() []string {
		var out []string
		for _, n := range api.MergeRequestNotes(project, 3) {
			out = append(out, n.Versions[len(n.Versions)-1])
		}
		return out
	}
	post := func(d glDelivery, want int) {
		t.Helper()
		if code, msg := d.post(t, svc.url); code != want {
			t.Fatalf("delivery %s: %d %s, want %d", d.ID, code, msg, want)
		}
	}

	// Past review feedback on the file, recorded as relay review feedback
	// does, in the repository's store directory.
	store := svc.Mirrors().StoreDir(cfg.Repositories[0])
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	const javaFile = "gson/src/main/java/com/google/gson/stream/JsonWriter.java"
	if err := review.OpenFeedback(store).Add(
		review.Feedback{File: javaFile, Line: 494, Comment: "Non-finite doubles must be allowed in lenient mode", Accepted: true},
		review.Feedback{File: javaFile, Line: 494, Comment: "Rename value to writeDouble", Accepted: false},
	); err != nil {
		t.Fatal(err)
	}
	post(glMergeRequest(t, "mr-open", project, 3, "open", pr.head1, ""), http.StatusAccepted)
	waitFor(t, 3*time.Minute, "the review note at the first head", func() bool {
		b := bodies()
		return len(b) == 1 && strings.Contains(b[0], pr.head1[:12])
	})
	wantReviewComment(t, bodies()[0])
	for _, want := range []string{"Non-finite doubles must be allowed in lenient mode", "Rename value to writeDouble", "NOT helpful"} {
		if !strings.Contains(bodies()[0], want) {
			t.Errorf("the review note lacks the past feedback %q:\n%s", want, bodies()[0])
		}
	}

	head2 := pr.push2(t)
	post(glMergeRequest(t, "mr-update", project, 3, "update", head2, pr.head1), http.StatusAccepted)
	waitFor(t, 3*time.Minute, "the review note edited to the second head", func() bool {
		b := bodies()
		return len(b) == 1 && strings.Contains(b[0], head2[:12]) && strings.Contains(b[0], "nullValue")
	})
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })

	if _, msg := glReviewNote(t, "note-guest", project, 3, "/relay review", 43).post(t, svc.url); !strings.Contains(msg, `"result":"`+ResultForbidden+`"`) {
		t.Fatalf("a guest's /relay review: %s, want %s", msg, ResultForbidden)
	}
	post(glReviewNote(t, "note-dev", project, 3, "/relay review", 42), http.StatusAccepted)
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })
	notes := api.MergeRequestNotes(project, 3)
	if len(notes) != 1 || notes[0].Author != glBot.Username {
		t.Fatalf("want one note by the bot on the merge request, got %+v", notes)
	}
}
