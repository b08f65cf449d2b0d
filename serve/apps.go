package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
)

// The repositories of a GitHub App at organisation scale.
//
// DESIGN: with app_id and no installation_id the bot serves every
// repository its installations can see that github.installations lets
// through. appRepos lists them at start (Installations: as the App, then
// each installation's repositories as that installation) and keeps the
// list current from the installation and installation_repositories
// deliveries: created and added repositories are read as their
// installation (an event names a repository without its default branch or
// topics) and filtered; deleted, suspended and removed ones go. A
// repository listed under repositories: is served as configured there
// (branch, remote, triggers); one only an installation names is served on
// its default branch from its clone URL, git authenticating with its
// installation's token (UseGitCredentials), which the client mints and
// caches until a minute before it expires. The list lives in memory: every
// process lists the installations at start, and every process behind the
// webhook URL sees the events that change them.

// appLister is what appRepos asks of GitHub (*github.Client).
type appLister interface {
	Installations(ctx context.Context) ([]github.Installation, error)
	InstallationRepo(ctx context.Context, id int64, fullName string) (github.AppRepo, error)
	InstallationRepos(ctx context.Context, id int64) ([]github.AppRepo, error)
}

// installationParser verifies and parses installation deliveries
// (*github.Webhook).
type installationParser interface {
	ParseInstallation(h http.Header, body []byte) (github.InstallationChange, error)
}

// appRepos is the served repositories of the App's installations.
type appRepos struct {
	filter *AppInstallations
	api    appLister
	log    *slog.Logger

	mu     sync.RWMutex
	repos  map[string]github.AppRepo // lower-case owner/name
	misses map[string]time.Time      // lower-case owner/name → when discover found it not served
}

// missTTL is how long discover takes a repository it found not served at
// its word, so deliveries from a denied repository cost no call each.
const missTTL = 5 * time.Minute

func newAppRepos(g *GitHubConfig, api appLister, log *slog.Logger) *appRepos {
	return &appRepos{filter: g.Installations, api: api, log: log, repos: map[string]github.AppRepo{}, misses: map[string]time.Time{}}
}

// load replaces the list with the installations' repositories now.
func (a *appRepos) load(ctx context.Context) ([]github.Installation, error) {
	insts, err := a.api.Installations(ctx)
	if err != nil {
		return nil, err
	}
	repos := map[string]github.AppRepo{}
	for _, in := range insts {
		for _, r := range in.Repos {
			if a.filter.Serves(r) {
				repos[strings.ToLower(r.FullName)] = r
			}
		}
	}
	a.mu.Lock()
	a.repos = repos
	a.mu.Unlock()
	a.log.Info("github app installations listed", "installations", len(insts), "repositories", len(repos))
	return insts, nil
}

// apply changes the list by one installation delivery.
func (a *appRepos) apply(ctx context.Context, ch github.InstallationChange) error {
	var added []github.AppRepo
	var errs []error
	if ch.Relist {
		repos, err := a.api.InstallationRepos(ctx, ch.Installation)
		if err != nil {
			return err
		}
		for _, r := range repos {
			if a.filter.Serves(r) {
				added = append(added, r)
			}
		}
	}
	for _, name := range ch.Added {
		r, err := a.api.InstallationRepo(ctx, ch.Installation, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if a.filter.Serves(r) {
			added = append(added, r)
		} else {
			a.log.Info("github app repository not served (github.installations)", "repo", name, "installation", ch.Installation)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.misses)
	for k, r := range a.repos {
		if ch.Gone && r.Installation == ch.Installation {
			delete(a.repos, k)
		}
	}
	for _, name := range ch.Removed {
		delete(a.repos, strings.ToLower(name))
	}
	for _, r := range added {
		a.repos[strings.ToLower(r.FullName)] = r
	}
	return errors.Join(errs...)
}

// get returns the served repository of the App named full (owner/name).
func (a *appRepos) get(full string) (github.AppRepo, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.repos[strings.ToLower(full)]
	return r, ok
}

// served returns the listed repositories as the workers serve them.
func (w *Worker) served() []Repository {
	out := slices.Clone(w.cfg.Repositories)
	if w.apps == nil {
		return out
	}
	w.apps.mu.RLock()
	names := make([]string, 0, len(w.apps.repos))
	for _, r := range w.apps.repos {
		names = append(names, r.FullName)
	}
	w.apps.mu.RUnlock()
	for _, n := range names {
		if _, ok := w.cfg.Repository(tracker.Ref{Source: tracker.GitHub, Repo: n}); !ok {
			r, _ := w.repository(tracker.Ref{Source: tracker.GitHub, Repo: n})
			out = append(out, r)
		}
	}
	return out
}

// discover reads a repository an installation's delivery names that the
// list lacks: behind a load balancer another process may have received
// the installation_repositories delivery that added it. A repository the
// installation cannot see, or the filter leaves out, is not served (and
// not asked about again for missTTL); a transient failure is an error.
func (a *appRepos) discover(ctx context.Context, inst int64, full string) (github.AppRepo, bool, error) {
	key := strings.ToLower(full)
	a.mu.RLock()
	missed, ok := a.misses[key]
	a.mu.RUnlock()
	if ok && time.Since(missed) < missTTL {
		return github.AppRepo{}, false, nil
	}
	r, err := a.api.InstallationRepo(ctx, inst, full)
	if retry, _ := tracker.Retryable(err); retry || errors.Is(err, context.DeadlineExceeded) {
		return github.AppRepo{}, false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil || !a.filter.Serves(r) {
		a.misses[key] = time.Now()
		return github.AppRepo{}, false, nil
	}
	a.repos[key] = r
	a.log.Info("github app repository found by a delivery", "repo", r.FullName, "installation", inst)
	return r, true, nil
}

// resolve is repository, asking GitHub about a repository of installation
// inst (the delivery's; 0: none) that the App's list lacks.
func (w *Worker) resolve(ctx context.Context, ref tracker.Ref, inst int64) (Repository, bool, error) {
	if r, ok := w.repository(ref); ok || w.apps == nil || inst == 0 || ref.Source != tracker.GitHub {
		return r, ok, nil
	}
	if _, ok, err := w.apps.discover(ctx, inst, ref.Repo); !ok || err != nil {
		return Repository{}, false, err
	}
	r, ok := w.repository(ref)
	return r, ok, nil
}

// repository returns the repository an issue belongs to: its entry in
// repositories:, else the App installation's repository it names.
func (w *Worker) repository(ref tracker.Ref) (Repository, bool) {
	if r, ok := w.cfg.Repository(ref); ok || w.apps == nil || ref.Source != tracker.GitHub {
		return r, ok
	}
	ar, ok := w.apps.get(ref.Repo)
	if !ok {
		return Repository{}, false
	}
	branch := ar.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	return Repository{GitHub: ar.FullName, Remote: ar.CloneURL, Branch: branch, TokenUser: "x-access-token"}, true
}

// installationOf is the App installation that posts to ref's repository:
// the listed one, else github.installation_id (0 for a token).
func (w *Worker) installationOf(ref tracker.Ref) int64 {
	if w.apps != nil {
		if r, ok := w.apps.get(ref.Repo); ok {
			return r.Installation
		}
	}
	if w.cfg.GitHub != nil {
		return w.cfg.GitHub.InstallationID
	}
	return 0
}

// installationDelivery applies an installation or
// installation_repositories delivery to the served repositories.
func (s *Service) installationDelivery(w http.ResponseWriter, r *http.Request, parser tracker.WebhookParser, body []byte, result func(res string, code int, msg string, args ...any)) {
	ip, ok := parser.(installationParser)
	if !ok || s.worker.apps == nil {
		result(ResultIgnored, http.StatusOK, "installation events change nothing here: github.app_id with installation_id serves the configured repositories")
		return
	}
	ch, err := ip.ParseInstallation(r.Header, body)
	var ign *tracker.Ignored
	switch {
	case errors.Is(err, tracker.ErrBadSignature):
		result(ResultBadSignature, http.StatusUnauthorized, err.Error())
		return
	case errors.As(err, &ign):
		result(ResultIgnored, http.StatusOK, ign.Reason)
		return
	case err != nil:
		result(ResultMalformed, http.StatusBadRequest, err.Error())
		return
	}
	args := []any{"delivery_id", ch.DeliveryID, "event", ch.Event, "installation", ch.Installation, "account", ch.Account}
	if err := s.worker.apps.apply(r.Context(), ch); err != nil {
		// GitHub redelivers on a 5xx; what was applied is applied again.
		s.log.Error("apply installation event", append(args, "err", err)...)
		result(ResultError, http.StatusServiceUnavailable, "could not read the installation's repositories; redeliver it", args...)
		return
	}
	result(ResultInstallation, http.StatusOK, fmt.Sprintf("%d added, %d removed, installation gone: %t", len(ch.Added), len(ch.Removed), ch.Gone), args...)
}

// CheckInstallations lists a GitHub App's installations as the bot would
// at start (relay serve --check-config), proving the App's key: one line
// per installation naming the repositories it serves and those the filter
// leaves out. Nothing without an App at organisation scale.
func CheckInstallations(ctx context.Context, cfg *Config, trackers map[string]tracker.Tracker) ([]string, error) {
	al, ok := trackers[tracker.GitHub].(appLister)
	if !ok || !cfg.GitHub.AppScale() {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	insts, err := al.Installations(cctx)
	if err != nil {
		return nil, fmt.Errorf("github app (app_id %d, the key in %s): %w", cfg.GitHub.AppID, cfg.GitHub.PrivateKeyEnv, err)
	}
	if len(insts) == 0 {
		return nil, fmt.Errorf("github app %d has no installations: install it on an organisation or account (its settings page, Install App)", cfg.GitHub.AppID)
	}
	sort.Slice(insts, func(i, j int) bool { return insts[i].ID < insts[j].ID })
	var lines []string
	for _, in := range insts {
		var served, left []string
		for _, r := range in.Repos {
			if cfg.GitHub.Installations.Serves(r) {
				served = append(served, r.FullName)
			} else {
				left = append(left, r.FullName)
			}
		}
		sort.Strings(served)
		sort.Strings(left)
		l := fmt.Sprintf("installation %d (%s): %d served: %s", in.ID, in.Account, len(served), strings.Join(served, ", "))
		if len(left) > 0 {
			l += fmt.Sprintf("; %d left out (archived or github.installations): %s", len(left), strings.Join(left, ", "))
		}
		lines = append(lines, l)
	}
	return lines, nil
}
