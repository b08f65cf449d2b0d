package serve

import (
	"cmp"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

// The status page: GET / on the webhook listener, off by default
// (status.enabled), behind status.token_env — a bearer token, or the
// password of HTTP basic auth (any user name) so a browser can open it. It
// shows the queue (waiting, running, retried and failed jobs with their
// issue links and last error) and the last reports posted, server-rendered
// by html/template (escaped; no JavaScript). River's own UI
// (riverqueue.com/riverui) was not mounted: it brings a JavaScript
// front end and its own API under the listener, where this page needs
// three queries the queue already answers.

//go:embed status.html
var statusFS embed.FS

var statusTmpl = template.Must(template.ParseFS(statusFS, "status.html"))

// StatusConfig is relay.yaml's status section.
type StatusConfig struct {
	Enabled  bool   `yaml:"enabled"`   // serve the status page at /; default off
	TokenEnv string `yaml:"token_env"` // env var holding the page's token; required when enabled
	Reports  int    `yaml:"reports"`   // last reports shown; default 20
}

func (c *StatusConfig) validate(v *validator) {
	if !c.Enabled {
		return
	}
	v.secret("status.token_env", c.TokenEnv, true)
	if c.Reports < 0 || c.Reports > 1000 {
		v.bad("status.reports %d: want 0 (the default, 20) to 1000", c.Reports)
	}
}

// statusJobStates are the jobs the page lists, in its order: running,
// waiting, retried (retryable), failed (discarded: out of attempts;
// cancelled: a permanent failure). Failed jobs stay listed until River
// deletes them (a week).
var statusJobStates = []rivertype.JobState{
	rivertype.JobStateRunning, rivertype.JobStateAvailable, rivertype.JobStateScheduled,
	rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateDiscarded,
	rivertype.JobStateCancelled, // a permanent failure (Permanent)
}

// statusJob is one job as the page shows it.
type statusJob struct {
	ID        int64
	State     string
	Issue     string
	URL       string
	Attempt   int
	Max       int
	LastError string
	At        time.Time
}

// statusReport is one posted report as the page shows it.
type statusReport struct {
	Key    string `json:"key"`
	Body   string `json:"body"`
	Posted int64  `json:"at"`
}

// PostedAt is when the report was posted.
func (r statusReport) PostedAt() time.Time { return time.Unix(r.Posted, 0).UTC() }

// mountStatus adds the status page to mux when the configuration enables
// it; token is status.token_env's value.
func (s *Service) mountStatus(mux *http.ServeMux, token string) {
	if !s.cfg.Status.Enabled || token == "" {
		return
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if !statusAuthorized(r, token) {
			w.Header().Set("WWW-Authenticate", `Basic realm="relay status"`)
			http.Error(w, "the status page needs status.token_env's token (bearer, or the basic-auth password)", http.StatusUnauthorized)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		page, err := s.statusData(ctx)
		if err != nil {
			s.log.Warn("status page", "err", err)
			http.Error(w, "the queue could not be read; see the log", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		if err := statusTmpl.Execute(w, page); err != nil {
			s.log.Warn("status page", "err", err)
		}
	})
}

func statusAuthorized(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		_, got, ok = r.BasicAuth()
	}
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

type statusPage struct {
	Now     time.Time
	Counts  map[string]int
	Jobs    []statusJob
	Reports []statusReport
}

func (s *Service) statusData(ctx context.Context) (statusPage, error) {
	rows, err := s.queue.Jobs(ctx, statusJobStates...)
	if err != nil {
		return statusPage{}, err
	}
	p := statusPage{Now: time.Now().UTC(), Counts: map[string]int{}}
	for _, row := range rows {
		p.Jobs = append(p.Jobs, s.statusJob(row))
		p.Counts[string(row.State)]++
	}
	order := func(st string) int { return slices.Index(statusJobStates, rivertype.JobState(st)) }
	slices.SortFunc(p.Jobs, func(a, b statusJob) int {
		return cmp.Or(cmp.Compare(order(a.State), order(b.State)), cmp.Compare(b.ID, a.ID))
	})
	p.Reports, err = s.queue.lastPostedReports(ctx, cmp.Or(s.cfg.Status.Reports, 20))
	return p, err
}

func (s *Service) statusJob(row *rivertype.JobRow) statusJob {
	j := statusJob{ID: row.ID, State: string(row.State), Attempt: row.Attempt, Max: row.MaxAttempts, At: row.ScheduledAt.UTC()}
	var args ScopeArgs
	if err := json.Unmarshal(row.EncodedArgs, &args); err == nil {
		j.Issue, j.URL = args.Ref.Key(), issueURL(s.cfg, args.Ref)
	}
	if n := len(row.Errors); n > 0 {
		j.LastError = row.Errors[n-1].Error
	}
	return j
}

// issueURL is the web address of ref's issue, or "" when unknown.
func issueURL(cfg *Config, ref tracker.Ref) string {
	var base string
	switch ref.Source {
	case tracker.GitHub:
		base = "https://github.com"
		if cfg.GitHub != nil && cfg.GitHub.BaseURL != "" {
			base = strings.TrimSuffix(strings.TrimSuffix(cfg.GitHub.BaseURL, "/"), "/api/v3")
		}
		return base + "/" + ref.Repo + "/issues/" + url.PathEscape(ref.Number)
	case tracker.GitLab:
		base = "https://gitlab.com"
		if cfg.GitLab != nil && cfg.GitLab.BaseURL != "" {
			base = strings.TrimSuffix(cfg.GitLab.BaseURL, "/")
		}
		return base + "/" + ref.Repo + "/-/issues/" + url.PathEscape(ref.Number)
	case tracker.Jira:
		if cfg.Jira != nil {
			return strings.TrimSuffix(cfg.Jira.BaseURL, "/") + "/browse/" + url.PathEscape(ref.Number)
		}
	}
	return ""
}

// lastPostedReports are the n reports posted last (relay_report).
func (q *Queue) lastPostedReports(ctx context.Context, n int) ([]statusReport, error) {
	agg := `COALESCE(json_group_array(json_object('key', job_key, 'body', body, 'at', posted_at)), '[]')`
	if q.Backend == "postgres" {
		agg = `COALESCE(json_agg(json_build_object('key', job_key, 'body', body, 'at', posted_at))::text, '[]')`
	}
	s, err := q.b.queryString(ctx, `SELECT `+agg+` FROM (SELECT job_key, body, posted_at FROM relay_report
ORDER BY posted_at DESC, job_key LIMIT $1) AS last`, n)
	if err != nil {
		return nil, fmt.Errorf("read the last reports: %w", err)
	}
	var out []statusReport
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("decode the last reports: %w", err)
	}
	slices.SortStableFunc(out, func(a, b statusReport) int { return cmp.Compare(b.Posted, a.Posted) })
	return out, nil
}
