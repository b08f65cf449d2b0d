package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab"
)

// SignedParser is a tracker.WebhookParser that names the header its
// deliveries are signed in ("" when it accepts unsigned ones). The server
// refuses a delivery without that header before it reads the body. A
// GitHub parser that does not say is taken to want X-Hub-Signature-256.
type SignedParser interface {
	SignatureHeader() string
}

// signatureHeader is the header a source's deliveries must carry.
func signatureHeader(source string, p tracker.WebhookParser) string {
	if sp, ok := p.(SignedParser); ok {
		return sp.SignatureHeader()
	}
	if source == tracker.GitHub {
		return "X-Hub-Signature-256"
	}
	return ""
}

// intake bounds the webhook bodies read at once by their bytes.
//
// DESIGN: a delivery reserves its Content-Length (or max_body_bytes when
// the sender streams it without one) from a weighted semaphore of
// intake_bytes before a byte is read, and gives it back when the handler
// returns. A delivery that does not fit at once is answered 503 with
// Retry-After instead of waiting, so a flood of large bodies holds neither
// memory nor connections; a known length over max_body_bytes is answered
// 413 unread. Real deliveries are a few kilobytes, so they fit beside any
// number of others; only bodies near the cap compete.
type intake struct {
	sem *semaphore.Weighted
	max int64
}

func newIntake(total, maxBody int64) *intake {
	return &intake{sem: semaphore.NewWeighted(total), max: maxBody}
}

var (
	errBusy   = errors.New("busy")
	errTooBig = errors.New("too large")
	busyRetry = 5 * time.Second // Retry-After of a 503 busy
)

// read reads r's body within the budget; release gives the bytes back.
func (in *intake) read(w http.ResponseWriter, r *http.Request) (body []byte, release func(), err error) {
	need := in.max
	if r.ContentLength > in.max {
		return nil, nil, errTooBig
	}
	if r.ContentLength >= 0 {
		need = r.ContentLength
	}
	if !in.sem.TryAcquire(need) {
		return nil, nil, errBusy
	}
	release = func() { in.sem.Release(need) }
	rd := http.MaxBytesReader(w, r.Body, in.max)
	if r.ContentLength >= 0 {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(rd, body)
	} else {
		body, err = io.ReadAll(rd)
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		err = errTooBig
	}
	return body, release, err
}

func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}

// PermissionCheck says whether a trigger's actor may start a job, for a
// source whose webhook cannot tell (Jira comment commands: project roles
// and groups, asked of Jira).
type PermissionCheck func(ctx context.Context, t tracker.Trigger) (bool, error)

// needsPermission says which triggers the source's permission check sees.
//
// DESIGN: in Jira, adding a label to an existing issue takes the Edit
// Issues project permission, which is permission enough to start a job (as
// triage is on GitHub). Labels set on the create screen take only Create
// Issues, which projects grant widely (any logged-in user, service-desk
// customers, a mail handler's reporter), so an issue created with a
// trigger label is checked like a comment command. triggers.opened is the
// operator's choice to scope every new issue whoever opens it, bounded by
// the rate limits and the cost caps; it is not checked.
//
// GitLab's payloads never say what role the actor has, so a note command
// is checked against gitlab.command_min_access through the members API.
// Setting labels takes the Planner or Reporter role on GitLab, whose
// label changes by anyone else are dropped, so a label added to an
// existing issue is not checked; a new issue with a trigger label is
// checked as on Jira, at the cost of one call, since GitLab's service
// desk and email issue creation run as a support bot.
func needsPermission(t tracker.Trigger) bool {
	return t.Reason == tracker.ReasonCommand || createdWithLabel(t) || reviewNote(t)
}

// createdWithLabel reports whether t is a new Jira or GitLab issue created
// with a trigger label (their parsers report the label before opened).
func createdWithLabel(t tracker.Trigger) bool {
	return t.Reason == tracker.ReasonLabeled && (t.Event == jiraIssueCreated || t.Event == gitlab.EventIssueOpen)
}

// switchedOn says whether t's trigger is on for repo (Config.Allows). A new
// issue with a trigger label where labels are off is taken as opened where
// opened is on.
func (s *Service) switchedOn(repo Repository, t *tracker.Trigger) bool {
	if s.cfg.Allows(repo, t.Reason) {
		return true
	}
	if createdWithLabel(*t) && s.cfg.Allows(repo, tracker.ReasonOpened) {
		t.Reason = tracker.ReasonOpened
		return true
	}
	return false
}

// jiraIssueCreated is the Jira webhook event of a new issue (tracker/jira
// sets Trigger.Event to it).
const jiraIssueCreated = "jira:issue_created"

// permitted runs the source's permission check for a trigger that needs it.
func (s *Service) permitted(ctx context.Context, t tracker.Trigger) (bool, error) {
	check := s.permissions[t.Ref.Source]
	if check == nil || !needsPermission(t) {
		return true, nil
	}
	ok, err := check(ctx, t)
	if err != nil {
		return false, fmt.Errorf("check the permission of %s: %w", t.Actor, err)
	}
	return ok, nil
}
