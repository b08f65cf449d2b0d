package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tracker"
)

// Config is the bot's configuration file (relay.yaml). Secrets are never
// in it: fields ending in _env name the environment variable that holds one.
type Config struct {
	Listen       string        `yaml:"listen"`        // HTTP address; default ":8080"
	StateDir     string        `yaml:"state_dir"`     // mirrors, per-repository stores, the embedded queue; required
	Queue        string        `yaml:"queue"`         // "" (embedded SQLite under state_dir) or postgres://… without a password
	QueueURLEnv  string        `yaml:"queue_url_env"` // env var holding the queue URL, for URLs with a password
	QueueFsync   bool          `yaml:"queue_fsync"`   // embedded queue: fsync every commit (survives power loss, slower accepts)
	Workers      int           `yaml:"workers"`       // jobs run at once by this process; default 4
	JobTimeout   time.Duration `yaml:"job_timeout"`   // deadline of one attempt; default 30m
	MaxAttempts  int           `yaml:"max_attempts"`  // attempts before a job finally fails; default 5
	RetryBackoff time.Duration `yaml:"retry_backoff"` // delay before the first retry, doubled each time; default 30s
	RetryMax     time.Duration `yaml:"retry_max"`     // longest retry delay; default 30m
	RescueAfter  time.Duration `yaml:"rescue_after"`  // a running job whose worker vanished is retried after this; default job_timeout + 5m
	DrainTimeout time.Duration `yaml:"drain_timeout"` // on SIGTERM, how long running jobs may finish before they go back to the queue; default 1m
	GitTimeout   time.Duration `yaml:"git_timeout"`   // deadline of one git command; default 10m
	// GoProxy is the GOPROXY the index step's go command may download
	// modules from (relay index --go-proxy), such as
	// https://proxy.golang.org; "" (the default) is off: the module cache
	// only, so a repository's go.mod makes no request.
	GoProxy      string `yaml:"go_proxy"`
	MaxBodyBytes int64  `yaml:"max_body_bytes"`
	// IntakeBytes caps the webhook body bytes read at once over all
	// requests; a delivery that does not fit is answered 503 with
	// Retry-After. Default 2 × max_body_bytes.
	IntakeBytes int64 `yaml:"intake_bytes"`
	// ShutdownDelay is how long /readyz answers 503 on SIGTERM before the
	// listener closes, so a load balancer stops sending first; default 5s.
	ShutdownDelay time.Duration `yaml:"shutdown_delay"`
	// Heartbeat is how often a worker process marks itself alive in a
	// PostgreSQL queue; a process silent for 3 heartbeats is dead and its
	// running jobs are taken back at once. Default 15s.
	Heartbeat time.Duration `yaml:"heartbeat"`
	// DryRun makes the bot post nothing: each comment it would post or
	// edit is logged ("dry run: would post") and counted in
	// relay_dry_run_posts_total{source,kind}; issues are still read and
	// scoped (dryrun.go).
	DryRun       bool          `yaml:"dry_run"`
	Limits       Limits        `yaml:"limits"`
	GitHub       *GitHubConfig `yaml:"github"`
	GitLab       *GitLabConfig `yaml:"gitlab"` // config_gitlab.go
	Jira         *JiraConfig   `yaml:"jira"`
	Triggers     Triggers      `yaml:"triggers"`
	Repositories []Repository  `yaml:"repositories"`
	Model        ModelConfig   `yaml:"model"`
	SecretFiles  SecretFiles   `yaml:"secret_files"` // secretfiles.go
	Index        IndexBudgets  `yaml:"index"`
	Status       StatusConfig  `yaml:"status"` // status.go

	path string // the file it was loaded from, for messages
}

// IndexBudgets are the per-file budgets of indexing a repository
// (index.Options MaxFileBytes, MaxDepth, ParseTimeout): absent or 0 takes
// the indexer's default, a negative value turns the limit off.
type IndexBudgets struct {
	MaxFileSize  int64         `yaml:"max_file_size"` // bytes: a larger file, or a minified one, is not parsed
	MaxDepth     int           `yaml:"max_depth"`     // syntax levels: a file nested deeper is not extracted
	ParseTimeout time.Duration `yaml:"parse_timeout"` // one file's parse stops after this long
}

// GitHubConfig connects to GitHub or GitHub Enterprise, with a token or as a
// GitHub App.
type GitHubConfig struct {
	WebhookSecretEnv string `yaml:"webhook_secret_env"` // required
	TokenEnv         string `yaml:"token_env"`          // a personal access or fine-grained token; or the App fields
	AppID            int64  `yaml:"app_id"`
	PrivateKeyEnv    string `yaml:"private_key_env"` // the App's PEM private key
	InstallationID   int64  `yaml:"installation_id"`
	BaseURL          string `yaml:"base_url"`   // GitHub Enterprise: https://ghe.example.com/api/v3/
	UploadURL        string `yaml:"upload_url"` // GitHub Enterprise uploads URL
	BotLogin         string `yaml:"bot_login"`  // the account (or app-name[bot]) the bot posts as
	// Installations filter the repositories an App without installation_id
	// serves: every installation's (config_app.go).
	Installations *AppInstallations `yaml:"installations,omitempty"`
}

// JiraConfig connects to Jira Cloud (email + API token) or Data Center
// (personal access token).
type JiraConfig struct {
	BaseURL          string `yaml:"base_url"`
	Cloud            bool   `yaml:"cloud"`
	Email            string `yaml:"email"`
	APITokenEnv      string `yaml:"api_token_env"`      // Cloud
	PATEnv           string `yaml:"pat_env"`            // Data Center
	WebhookSecretEnv string `yaml:"webhook_secret_env"` // optional; when set, unsigned deliveries are refused
	BotAccount       string `yaml:"bot_account"`        // account id (Cloud) or user name (DC) the bot posts as
	// A comment command runs only for a member of one of these project
	// roles or groups. Default: the roles Administrators and Developers.
	CommandRoles  []string `yaml:"command_roles"`
	CommandGroups []string `yaml:"command_groups"`
}

// Limits cap how many jobs triggers may start and what the model may cost.
// Zero takes the default; the cost caps default to none.
type Limits struct {
	AuthorPerHour     float64 `yaml:"author_per_hour"`     // new jobs one author may start per hour; default 10
	RepositoryPerHour float64 `yaml:"repository_per_hour"` // new jobs per repository (or Jira project) per hour; default 60
	CostPerHour       float64 `yaml:"cost_per_hour"`       // model cost of all jobs in any hour, by model.prices; 0 = no cap
	CostPerDay        float64 `yaml:"cost_per_day"`        // ... in any 24 hours; 0 = no cap
}

// Triggers decide which deliveries start a job.
type Triggers struct {
	Opened       *bool    `yaml:"opened"`       // scope newly opened issues; default false (anyone who can open an issue could start a model run)
	Labels       []string `yaml:"labels"`       // adding one of these labels triggers
	Commands     []string `yaml:"commands"`     // comment prefixes; default ["/relay scope"]
	Associations []string `yaml:"associations"` // GitHub author associations allowed to command; default OWNER, MEMBER, COLLABORATOR
}

// Repository maps a GitHub repository, a GitLab project or a Jira
// project to the git remote the bot reads.
type Repository struct {
	GitHub    string `yaml:"github"`     // owner/name
	GitLab    string `yaml:"gitlab"`     // group/name (subgroups allowed)
	Jira      string `yaml:"jira"`       // project key
	Remote    string `yaml:"remote"`     // git URL (https, ssh, or a local path)
	Branch    string `yaml:"branch"`     // default branch; default "main"
	TokenEnv  string `yaml:"token_env"`  // git's token; without it a GitHub App's installation token, or the GitLab token, is used
	TokenUser string `yaml:"token_user"` // user of HTTP basic auth for the token; default x-access-token
	// Triggers switch the triggers for this repository alone; absent
	// ones follow the triggers section.
	Triggers RepoTriggers `yaml:"triggers,omitempty"`
	// Review opts the repository in to the review bot: the review context
	// of its pull requests (merge requests) as one comment (review.go).
	Review bool `yaml:"review,omitempty"`
}

// RepoTriggers are one repository's trigger switches.
type RepoTriggers struct {
	Opened   *bool `yaml:"opened"`   // scope its newly opened issues; default triggers.opened (either way)
	Labels   *bool `yaml:"labels"`   // false: triggers.labels start nothing here; default true
	Commands *bool `yaml:"commands"` // false: comment commands start nothing here; default true
}

// Key is the repository's tracker key: "github:owner/name",
// "gitlab:group/name" or "jira:KEY".
func (r Repository) Key() string {
	switch {
	case r.GitHub != "":
		return tracker.GitHub + ":" + r.GitHub
	case r.GitLab != "":
		return tracker.GitLab + ":" + r.GitLab
	}
	return tracker.Jira + ":" + r.Jira
}

// ModelConfig holds the model settings of the CLI (see `relay scope
// --help`); an empty base_url and api_key_env mean no model: the bot posts
// the offline context report.
type ModelConfig struct {
	BaseURL          string            `yaml:"base_url"`
	APIKeyEnv        string            `yaml:"api_key_env"`
	Model            string            `yaml:"model"`
	PlannerModel     string            `yaml:"planner_model"`
	RetrieverModel   string            `yaml:"retriever_model"`
	GapModel         string            `yaml:"gap_model"`
	Prices           map[string]string `yaml:"prices"` // model: "in/out" per million tokens
	MaxTokens        int64             `yaml:"max_tokens"`
	MaxCost          float64           `yaml:"max_cost"`
	Parallel         int               `yaml:"parallel"`
	PlannerSteps     int               `yaml:"planner_steps"`
	RetrieverSteps   int               `yaml:"retriever_steps"`
	RetrieverTimeout time.Duration     `yaml:"retriever_timeout"`
	RequestTimeout   time.Duration     `yaml:"request_timeout"`
	Timeout          time.Duration     `yaml:"timeout"`
	Retries          int               `yaml:"retries"`
	NoJSONMode       bool              `yaml:"no_json_mode"`
}

// Configured reports whether a model endpoint is configured.
func (m ModelConfig) Configured() bool { return m.BaseURL != "" || m.APIKeyEnv != "" }

// DefaultMaxBody is the webhook body cap (GitHub's own limit is 25 MB).
const DefaultMaxBody = 25 << 20

// LoadConfig parses a configuration file strictly: an unknown key is an
// error naming it and its line. name is the file name used in messages.
func LoadConfig(name string, r io.Reader) (*Config, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s is empty; see examples/bot/relay.yaml", name)
		}
		return nil, fmt.Errorf("%s", yamlError(name, err))
	}
	c.path = name
	c.SetDefaults()
	return &c, nil
}

var (
	yamlUnknownRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type \S+`)
	yamlLineRE    = regexp.MustCompile(`(?:yaml: )?line (\d+): `)
)

// yamlError rewrites yaml.v3's messages as "file:line: …".
func yamlError(name string, err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if m := yamlUnknownRE.FindStringSubmatch(l); m != nil {
			out = append(out, fmt.Sprintf("%s:%s: unknown key %q (see examples/bot/relay.yaml for the keys)", name, m[1], m[2]))
			continue
		}
		if yamlLineRE.MatchString(l) {
			out = append(out, name+":"+yamlLineRE.ReplaceAllString(l, "$1: "))
		} else {
			out = append(out, name+": "+strings.TrimPrefix(l, "yaml: "))
		}
	}
	return strings.Join(out, "\n")
}

// SetDefaults fills in what the file left out.
func (c *Config) SetDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Listen == "" {
		c.Listen = ":8080"
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 5
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBody
	}
	def(&c.JobTimeout, 30*time.Minute)
	def(&c.RetryBackoff, 30*time.Second)
	def(&c.RetryMax, 30*time.Minute)
	def(&c.RescueAfter, c.JobTimeout+5*time.Minute)
	def(&c.DrainTimeout, time.Minute)
	def(&c.GitTimeout, 10*time.Minute)
	if c.IntakeBytes == 0 {
		c.IntakeBytes = 2 * c.MaxBodyBytes
	}
	def(&c.ShutdownDelay, 5*time.Second)
	def(&c.Heartbeat, 15*time.Second)
	if c.Limits.AuthorPerHour == 0 {
		c.Limits.AuthorPerHour = 10
	}
	if c.Limits.RepositoryPerHour == 0 {
		c.Limits.RepositoryPerHour = 60
	}
	if c.GitLab != nil {
		c.GitLab.setDefaults()
	}
	if c.Jira != nil && c.Jira.CommandRoles == nil && c.Jira.CommandGroups == nil {
		c.Jira.CommandRoles = []string{"Administrators", "Developers"}
	}
	if c.Triggers.Opened == nil {
		f := false
		c.Triggers.Opened = &f
	}
	if c.Triggers.Commands == nil {
		c.Triggers.Commands = []string{"/relay scope"}
	}
	if c.Triggers.Associations == nil {
		c.Triggers.Associations = slices.Clone(tracker.DefaultAssociations)
	}
	for i := range c.Repositories {
		if c.Repositories[i].Branch == "" {
			c.Repositories[i].Branch = "main"
		}
		if c.Repositories[i].TokenUser == "" {
			c.Repositories[i].TokenUser = "x-access-token"
		}
	}
}

// Rules returns the trigger rules for a tracker's webhook parser. Opened
// issues are reported when any repository scopes them (Allows decides per
// repository).
func (c *Config) Rules(botLogin string) tracker.Rules {
	opened := *c.Triggers.Opened
	for _, r := range c.Repositories {
		opened = opened || r.Triggers.Opened != nil && *r.Triggers.Opened
	}
	return tracker.Rules{
		OnOpened:     opened,
		Labels:       c.Triggers.Labels,
		Commands:     c.Triggers.Commands,
		Associations: c.Triggers.Associations,
		BotLogin:     botLogin,
		Review:       c.reviewAny(),
	}
}

// reviewAny says whether any repository opted in to the review bot.
func (c *Config) reviewAny() bool {
	for _, r := range c.Repositories {
		if r.Review {
			return true
		}
	}
	return false
}

// Allows says whether a trigger of reason starts a job on repository r:
// its own switch (RepoTriggers), else the triggers section's.
func (c *Config) Allows(r Repository, reason string) bool {
	on := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	switch reason {
	case tracker.ReasonOpened:
		return on(r.Triggers.Opened, *c.Triggers.Opened)
	case tracker.ReasonLabeled:
		return on(r.Triggers.Labels, true)
	case tracker.ReasonCommand:
		return on(r.Triggers.Commands, true)
	case tracker.ReasonReview:
		return r.Review
	}
	return true
}

// Repository returns the repository configured for an issue, if any.
func (c *Config) Repository(ref tracker.Ref) (Repository, bool) {
	for _, r := range c.Repositories {
		if (ref.Source == tracker.GitHub && r.GitHub != "" && strings.EqualFold(r.GitHub, ref.Repo)) ||
			(ref.Source == tracker.GitLab && r.GitLab != "" && strings.EqualFold(r.GitLab, ref.Repo)) ||
			(ref.Source == tracker.Jira && r.Jira != "" && strings.EqualFold(r.Jira, ref.Repo)) {
			return r, true
		}
	}
	return Repository{}, false
}

var (
	ghRepoRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
	jiraKeyRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Validate checks the configuration and that every secret it names is set in
// the environment (getenv). It returns every problem found, joined.
func (c *Config) Validate(getenv func(string) string) error {
	v := &validator{path: c.path, getenv: getenv}
	c.validateQueue(v)
	if c.GitHub == nil && c.GitLab == nil && c.Jira == nil {
		v.bad("configure github, gitlab or jira (or several)")
	}
	if c.GitHub != nil {
		c.GitHub.validate(v)
	}
	if c.GitLab != nil {
		c.GitLab.validate(v)
	}
	if c.Jira != nil {
		c.Jira.validate(v)
	}
	c.validateRepositories(v)
	c.Status.validate(v)
	for _, p := range c.Model.Prices {
		if _, _, ok := strings.Cut(p, "/"); !ok {
			v.bad("model.prices: %q is not in/out per million tokens, e.g. \"0.15/0.60\"", p)
		}
	}
	v.secret("model.api_key_env", c.Model.APIKeyEnv, false)
	c.Model.validateNumbers(v)
	c.SecretFiles.validate(v)
	return errors.Join(v.errs...)
}

// validateNumbers refuses negative model settings, which would otherwise
// pass --check-config and fail every job with an error about relay scope's
// command-line flags. Zero means the default.
func (m ModelConfig) validateNumbers(v *validator) {
	ints := []struct {
		key string
		n   int64
	}{
		{"max_tokens", m.MaxTokens}, {"parallel", int64(m.Parallel)}, {"planner_steps", int64(m.PlannerSteps)},
		{"retriever_steps", int64(m.RetrieverSteps)}, {"retries", int64(m.Retries)},
	}
	for _, n := range ints {
		if n.n < 0 {
			v.bad("model.%s: %d is negative; give a positive number, or leave it out for the default", n.key, n.n)
		}
	}
	durs := []struct {
		key string
		d   time.Duration
	}{{"retriever_timeout", m.RetrieverTimeout}, {"request_timeout", m.RequestTimeout}, {"timeout", m.Timeout}}
	for _, d := range durs {
		if d.d < 0 {
			v.bad("model.%s: %s is negative; give a positive duration such as 5m, or leave it out for the default", d.key, d.d)
		}
	}
	if m.MaxCost < 0 {
		v.bad("model.max_cost: %g is negative; give a positive amount, or leave it out for no limit", m.MaxCost)
	}
}

// validator collects Validate's problems, each prefixed with the file.
type validator struct {
	path   string
	getenv func(string) string
	errs   []error
}

func (v *validator) bad(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s: "+format, append([]any{v.path}, args...)...))
}

// secret checks that key names an environment variable (never the secret
// itself) that is set; "" is a problem only when required.
func (v *validator) secret(key, env string, required bool) {
	switch {
	case env == "" && required:
		v.bad("%s is required: name the environment variable that holds the secret", key)
	case env == "":
	case !envNameRE.MatchString(env):
		v.bad("%s %q is not an environment variable name (the secret itself never goes in the file)", key, env)
	case v.getenv(env) == "":
		v.bad("%s: environment variable %s is not set", key, env)
	}
}

// validateQueue checks the state directory, the queue and the workers.
func (c *Config) validateQueue(v *validator) {
	if c.StateDir == "" {
		v.bad("state_dir is required: the directory for mirrors, indexes and the embedded queue")
	} else if !filepath.IsAbs(c.StateDir) && !strings.HasPrefix(c.StateDir, ".") {
		v.bad("state_dir %q: use an absolute path (or one starting with ./)", c.StateDir)
	}
	if c.Queue != "" && c.QueueURLEnv != "" {
		v.bad("give queue or queue_url_env, not both")
	}
	if c.Queue != "" {
		if err := CheckQueueURL(c.Queue); err != nil {
			v.bad("queue %q: %v (or leave it empty for the embedded queue)", Redact(c.Queue), err)
		} else if u, _ := url.Parse(c.Queue); u.User != nil {
			if _, ok := u.User.Password(); ok {
				v.bad("queue: the URL holds a password; put the whole URL in an environment variable and name it in queue_url_env")
			}
		}
	}
	v.secret("queue_url_env", c.QueueURLEnv, false)
	c.validateRanges(v)
}

// Upper bounds of the numeric settings: beyond them a value is a typo.
const (
	maxWorkers     = 256
	maxAttemptsCap = 100
	maxBodyCap     = 1 << 30
)

// validateRanges checks every numeric setting against its range. Defaults
// have been applied, so zero only remains where it means "none".
func (c *Config) validateRanges(v *validator) {
	if c.Workers < 1 || c.Workers > maxWorkers {
		v.bad("workers: %d is out of range; give 1 to %d (each worker holds a worktree and a model run)", c.Workers, maxWorkers)
	}
	if c.MaxAttempts < 1 || c.MaxAttempts > maxAttemptsCap {
		v.bad("max_attempts: %d is out of range; give 1 to %d", c.MaxAttempts, maxAttemptsCap)
	}
	durs := []struct {
		key string
		d   time.Duration
	}{
		{"job_timeout", c.JobTimeout}, {"retry_backoff", c.RetryBackoff}, {"retry_max", c.RetryMax},
		{"rescue_after", c.RescueAfter}, {"drain_timeout", c.DrainTimeout}, {"git_timeout", c.GitTimeout},
		{"shutdown_delay", c.ShutdownDelay}, {"heartbeat", c.Heartbeat},
	}
	for _, d := range durs {
		if d.d < 0 {
			v.bad("%s: %s is negative; give a positive duration such as 30s or 10m, or leave it out for the default", d.key, d.d)
		}
	}
	if c.RetryMax < c.RetryBackoff {
		v.bad("retry_max (%s) is shorter than retry_backoff (%s); make it at least as long", c.RetryMax, c.RetryBackoff)
	}
	if c.RescueAfter <= c.JobTimeout {
		v.bad("rescue_after (%s) must be longer than job_timeout (%s), or a slow job would run twice", c.RescueAfter, c.JobTimeout)
	}
	if c.Heartbeat > 0 && 3*c.Heartbeat >= c.RescueAfter {
		v.bad("heartbeat (%s) must be under a third of rescue_after (%s); 15s is a good value", c.Heartbeat, c.RescueAfter)
	}
	if c.MaxBodyBytes < 1 || c.MaxBodyBytes > maxBodyCap {
		v.bad("max_body_bytes: %d is out of range; give 1 to %d (GitHub sends at most 25 MB: 26214400)", c.MaxBodyBytes, maxBodyCap)
	} else if c.IntakeBytes < c.MaxBodyBytes {
		v.bad("intake_bytes (%d) is below max_body_bytes (%d): the largest delivery could never be read; make it at least max_body_bytes", c.IntakeBytes, c.MaxBodyBytes)
	}
	lim := []struct {
		key string
		n   float64
	}{
		{"author_per_hour", c.Limits.AuthorPerHour}, {"repository_per_hour", c.Limits.RepositoryPerHour},
		{"cost_per_hour", c.Limits.CostPerHour}, {"cost_per_day", c.Limits.CostPerDay},
	}
	for _, l := range lim {
		if l.n < 0 {
			v.bad("limits.%s: %g is negative; give a positive number, or leave it out for the default", l.key, l.n)
		}
	}
	for _, l := range lim[2:] {
		if l.n > 0 && c.Model.Configured() && c.Model.MaxCost == 0 {
			// Each job reserves max_cost before it runs; without it the
			// running jobs could pass the cap by what they cost.
			v.bad("limits.%s (%g) caps the model cost but model.max_cost is not set, so a running job could pass the cap by what it costs; set model.max_cost to the most one job may cost (e.g. 0.50), at most the cap", l.key, l.n)
		}
		if l.n > 0 && c.Model.MaxCost > l.n {
			v.bad("limits.%s (%g) is below model.max_cost (%g), the most one job may cost; raise it or lower max_cost", l.key, l.n, c.Model.MaxCost)
		}
	}
}

// CheckQueueURL checks a PostgreSQL queue URL as relay serve --queue and
// relay batch --queue take it: postgres:// or postgresql://, a password
// allowed (it is never printed).
func CheckQueueURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" && u.Query().Get("host") == "" {
		return errors.New("want a postgres:// URL such as postgres://db.example.com:5432/relay")
	}
	return nil
}

func (g *GitHubConfig) validate(v *validator) {
	v.secret("github.webhook_secret_env", g.WebhookSecretEnv, true)
	switch {
	case g.TokenEnv != "" && g.AppID != 0:
		v.bad("github: give token_env or app_id (with private_key_env and installation_id), not both")
	case g.TokenEnv != "":
		v.secret("github.token_env", g.TokenEnv, true)
	case g.AppID != 0:
		v.secret("github.private_key_env", g.PrivateKeyEnv, true)
		g.Installations.validate(v)
	default:
		v.bad("github: set token_env, or app_id with private_key_env (and installation_id for one installation)")
	}
	if g.Installations != nil && !g.AppScale() {
		v.bad("github.installations filters an App's installations: it needs app_id without installation_id")
	}
	if g.BotLogin == "" {
		v.bad("github.bot_login is required: the account the bot posts as (its comments never trigger it)")
	}
}

func (j *JiraConfig) validate(v *validator) {
	if u, err := url.Parse(j.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
		v.bad("jira.base_url %q: want https://your-site.atlassian.net or your Data Center URL", j.BaseURL)
	}
	if j.Cloud {
		if j.Email == "" {
			v.bad("jira.email is required on Cloud (with api_token_env)")
		}
		v.secret("jira.api_token_env", j.APITokenEnv, true)
	} else {
		v.secret("jira.pat_env", j.PATEnv, true)
	}
	v.secret("jira.webhook_secret_env", j.WebhookSecretEnv, false)
}

// validateRepositories checks each repository mapping: one tracker, a
// section for it, no duplicates, a remote without a password.
func (c *Config) validateRepositories(v *validator) {
	if len(c.Repositories) == 0 && !c.GitHub.AppScale() {
		v.bad("repositories is empty: map at least one GitHub repository, GitLab project or Jira project to a git remote")
	}
	seen := map[string]bool{}
	for i, r := range c.Repositories {
		where := fmt.Sprintf("repositories[%d]", i)
		set := 0
		for _, s := range []string{r.GitHub, r.GitLab, r.Jira} {
			if s != "" {
				set++
			}
		}
		switch {
		case set != 1:
			v.bad("%s: set exactly one of github (owner/name), gitlab (group/name) and jira (project key)", where)
		case r.GitHub != "" && !ghRepoRE.MatchString(r.GitHub):
			v.bad("%s: github %q is not owner/name", where, r.GitHub)
		case r.GitHub != "" && c.GitHub == nil:
			v.bad("%s: github repository %s but no github section", where, r.GitHub)
		case r.GitLab != "" && !gitlabPath(r.GitLab):
			v.bad("%s: gitlab %q is not a project path such as group/name or group/subgroup/name", where, r.GitLab)
		case r.GitLab != "" && c.GitLab == nil:
			v.bad("%s: gitlab project %s but no gitlab section", where, r.GitLab)
		case r.Jira != "" && !jiraKeyRE.MatchString(r.Jira):
			v.bad("%s: jira %q is not an upper-case project key", where, r.Jira)
		case r.Jira != "" && c.Jira == nil:
			v.bad("%s: jira project %s but no jira section", where, r.Jira)
		case r.Review && r.Jira != "":
			v.bad("%s: review is for GitHub pull requests and GitLab merge requests; remove it from the jira entry %s", where, r.Jira)
		}
		if k := strings.ToLower(r.Key()); seen[k] {
			v.bad("%s: %s is configured twice", where, r.Key())
		} else {
			seen[k] = true
		}
		if r.Remote == "" {
			v.bad("%s: remote is required (the git URL to mirror)", where)
		} else if u, err := url.Parse(r.Remote); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				v.bad("%s: the remote URL holds a password; use token_env", where)
			}
		}
		v.secret(where+".token_env", r.TokenEnv, false)
	}
}

// CheckStateDir creates the state directory if need be and checks that
// relay can write in it.
func (c *Config) CheckStateDir() error {
	if c.StateDir == "" {
		return nil // Validate says so
	}
	if err := os.MkdirAll(c.StateDir, 0o755); err != nil {
		return fmt.Errorf("%s: state_dir %s cannot be created: %w; create it for the user relay runs as, or choose another", c.path, c.StateDir, err)
	}
	if err := writable(c.StateDir); err != nil {
		return fmt.Errorf("%s: state_dir %s: %w; give the user relay runs as write access", c.path, c.StateDir, err)
	}
	return nil
}

// QueueURL returns the PostgreSQL URL of the queue, or "" for the embedded
// one.
func (c *Config) QueueURL(getenv func(string) string) string {
	if c.QueueURLEnv != "" {
		return getenv(c.QueueURLEnv)
	}
	return c.Queue
}

// Effective renders the configuration with defaults applied, as YAML. It
// holds environment variable names, never their values; a password in the
// queue URL is redacted.
func (c *Config) Effective() string {
	cp := *c
	cp.Queue = Redact(cp.Queue)
	cp.Repositories = slices.Clone(c.Repositories)
	for i := range cp.Repositories {
		cp.Repositories[i].Remote = Redact(cp.Repositories[i].Remote)
	}
	b, err := yaml.Marshal(&cp)
	if err != nil {
		return fmt.Sprintf("# cannot render the configuration: %v\n", err)
	}
	return string(b)
}

// Redact masks the secrets of a URL (a password, a user that is a token,
// secret query parameters) with internal/redact.
func Redact(s string) string { return redact.URL(s) }
