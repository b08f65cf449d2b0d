package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mirrors keeps one bare mirror per repository under dir/repos, a store
// directory per repository beside it (the graph and search index reused by
// every job), and a detached worktree per job under dir/worktrees.
type Mirrors struct {
	dir     string
	timeout time.Duration
	secret  func(env string) string // reads the token named by Repository.TokenEnv
	creds   GitTokenFunc            // a token for a repository without TokenEnv (a GitHub App's), or nil
	log     *slog.Logger
	env     []string // the process environment, minus git configuration set through it

	mu    sync.Mutex
	locks map[string]*sync.RWMutex
}

// NewMirrors returns Mirrors rooted at stateDir. secret resolves token
// environment variable names.
func NewMirrors(stateDir string, timeout time.Duration, secret func(string) string, log *slog.Logger) *Mirrors {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_CONFIG_") && !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			env = append(env, kv)
		}
	}
	// Never ask on a terminal; never read the user's global git config
	// (credential helpers, url rewrites) that the bot's operator did not
	// configure for it.
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=")
	return &Mirrors{dir: stateDir, timeout: timeout, secret: secret, log: log, env: env, locks: map[string]*sync.RWMutex{}}
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// slug names a repository's directory: readable, and unique by a hash.
func slug(r Repository) string {
	h := sha256.Sum256([]byte(r.Key() + "\x00" + r.Remote))
	return slugRE.ReplaceAllString(r.Key(), "_") + "-" + hex.EncodeToString(h[:4])
}

func (m *Mirrors) repoDir(r Repository) string { return filepath.Join(m.dir, "repos", slug(r)) }

// MirrorDir is the bare mirror of r.
func (m *Mirrors) MirrorDir(r Repository) string { return filepath.Join(m.repoDir(r), "mirror.git") }

// StoreDir is where r's graph and search index live, reused across jobs.
func (m *Mirrors) StoreDir(r Repository) string { return filepath.Join(m.repoDir(r), "store") }

// lock is the in-process lock of one repository: fetches, worktree changes
// and index updates take it exclusively, scopes that read the store share it.
func (m *Mirrors) lock(r Repository) *sync.RWMutex {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.repoDir(r)
	if m.locks[k] == nil {
		m.locks[k] = &sync.RWMutex{}
	}
	return m.locks[k]
}

// GitTokenFunc returns a token git can read repository r with, or "" for
// none.
type GitTokenFunc func(ctx context.Context, r Repository) (string, error)

// SetGitCredentials makes m ask fn for the token of a repository that has
// no token_env (serve wires a GitHub App's installation tokens here). Call
// it before the first git command.
func (m *Mirrors) SetGitCredentials(fn GitTokenFunc) { m.creds = fn }

// authEnv passes the repository's token to git as an HTTP header through
// GIT_CONFIG_COUNT/KEY/VALUE: it never touches disk or argv. The token is
// the one named by the repository's token_env, else the one the
// credentials function gives.
func (m *Mirrors) authEnv(ctx context.Context, r Repository) (env []string, token string, err error) {
	switch {
	case r.TokenEnv != "" && m.secret != nil:
		token = m.secret(r.TokenEnv)
	case r.TokenEnv == "" && m.creds != nil:
		if token, err = m.creds(ctx, r); err != nil {
			return nil, "", fmt.Errorf("git credentials of %s: %w", r.Key(), err)
		}
	}
	if token == "" {
		return nil, "", nil
	}
	user := r.TokenUser
	if user == "" {
		user = "x-access-token"
	}
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + token))
	return []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=http.extraHeader",
		"GIT_CONFIG_VALUE_0=Authorization: Basic " + basic,
	}, basic, nil
}

// git runs one git command with the repository's credentials and the
// timeout; the process group is killed when the deadline passes. Its output
// is returned with any credential removed.
func (m *Mirrors) git(ctx context.Context, r Repository, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	auth, secret, err := m.authEnv(ctx, r)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), m.env...), auth...)
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	text := strings.TrimSpace(out.String())
	if secret != "" {
		text = strings.ReplaceAll(text, secret, "REDACTED")
	}
	m.log.Debug("git", "args", strings.Join(args, " "), "dur", time.Since(start), "err", err)
	if err != nil {
		if ctx.Err() != nil {
			return text, fmt.Errorf("git %s: killed after %s: %w", args[0], m.timeout, ctx.Err())
		}
		if text == "" {
			return text, fmt.Errorf("git %s: %w (no output)", args[0], err)
		}
		return text, fmt.Errorf("git %s: %w: %s", args[0], err, lastLines(text, 5))
	}
	return text, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Fetch creates r's mirror on first use (git clone --mirror) and fetches it
// otherwise, then returns the head commit of r's default branch.
func (m *Mirrors) Fetch(ctx context.Context, r Repository) (string, error) {
	l := m.lock(r)
	l.Lock()
	defer l.Unlock()
	mirror := m.MirrorDir(r)
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); err != nil {
		if err := os.MkdirAll(m.repoDir(r), 0o755); err != nil {
			return "", fmt.Errorf("create mirror directory: %w", err)
		}
		tmp := mirror + ".tmp"
		os.RemoveAll(tmp)
		if _, err := m.git(ctx, r, m.repoDir(r), "clone", "--mirror", "--quiet", "--", r.Remote, tmp); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("mirror %s: %w", r.Key(), err)
		}
		if err := os.Rename(tmp, mirror); err != nil {
			return "", fmt.Errorf("mirror %s: %w", r.Key(), err)
		}
	} else if _, err := m.git(ctx, r, mirror, "fetch", "--prune", "--quiet", "origin"); err != nil {
		return "", fmt.Errorf("fetch %s: %w", r.Key(), err)
	}
	head, err := m.git(ctx, r, mirror, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s has no branch %q; set branch in its repositories entry: %w", r.Key(), r.Branch, err)
	}
	return head, nil
}

// Worktree checks out commit in a new detached worktree named after the job
// and returns its path and a function that removes it.
func (m *Mirrors) Worktree(ctx context.Context, r Repository, commit, name string) (string, func(), error) {
	l := m.lock(r)
	l.Lock()
	defer l.Unlock()
	dir := filepath.Join(m.dir, "worktrees", slug(r), name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", nil, fmt.Errorf("create worktree directory: %w", err)
	}
	m.removeWorktree(ctx, r, dir)
	if _, err := m.git(ctx, r, m.MirrorDir(r), "worktree", "add", "--detach", "--force", "--quiet", dir, commit); err != nil {
		return "", nil, fmt.Errorf("check out %s at %s: %w", r.Key(), commit, err)
	}
	return dir, func() {
		l.Lock()
		defer l.Unlock()
		m.removeWorktree(context.WithoutCancel(ctx), r, dir)
	}, nil
}

func (m *Mirrors) removeWorktree(ctx context.Context, r Repository, dir string) {
	if _, err := os.Stat(dir); err == nil {
		if _, err := m.git(ctx, r, m.MirrorDir(r), "worktree", "remove", "--force", dir); err != nil {
			m.log.Warn("remove worktree", "dir", dir, "err", err)
			os.RemoveAll(dir)
		}
	}
	m.git(ctx, r, m.MirrorDir(r), "worktree", "prune")
}

// Clean removes the worktrees a previous process left behind (it was killed
// mid-job): their jobs run again from the queue.
func (m *Mirrors) Clean(ctx context.Context, repos []Repository) error {
	for _, r := range repos {
		base := filepath.Join(m.dir, "worktrees", slug(r))
		ents, err := os.ReadDir(base)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("clean worktrees: %w", err)
		}
		for _, e := range ents {
			m.removeWorktree(ctx, r, filepath.Join(base, e.Name()))
		}
	}
	return nil
}

// LsRemote checks that r's remote answers and has its branch
// (`relay serve --check-config`).
func (m *Mirrors) LsRemote(ctx context.Context, r Repository) (string, error) {
	out, err := m.git(ctx, r, m.dir, "ls-remote", "--exit-code", "--", r.Remote, "refs/heads/"+r.Branch)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 {
		// --exit-code: the remote answered, but has no such branch.
		return "", fmt.Errorf("%s: remote %s has no branch %q; set the repository's branch to one it has (e.g. main or master)", r.Key(), r.Remote, r.Branch)
	}
	if err != nil {
		return "", fmt.Errorf("%s: remote %s branch %s: %w", r.Key(), r.Remote, r.Branch, err)
	}
	sha, _, _ := strings.Cut(out, "\t")
	return sha, nil
}

// Version runs git --version: the readiness probe's check that git runs.
func (m *Mirrors) Version(ctx context.Context) (string, error) {
	return m.git(ctx, Repository{}, m.dir, "--version")
}

// worktreeName names a job's worktree: job id and attempt, so a retry never
// collides with a leftover of the attempt before.
func worktreeName(jobID int64, attempt int) string {
	return "job-" + strconv.FormatInt(jobID, 10) + "-" + strconv.Itoa(attempt)
}
