// Package serve is the issue-scoping bot behind `relay serve`: webhook intake
// for GitHub, GitLab and Jira, the durable job queue, the workers that scope an issue
// at a recorded commit, the repository mirrors and worktrees they read, and
// the metrics and health endpoints around them.
//
// It owns:
//
//   - Config: the YAML file (strict: unknown keys are errors naming the key
//     and line), secrets read only through the environment by name, and the
//     checks behind `relay serve --check-config` (every value's range, the
//     state directory writable, and the network checks: CheckRemotes,
//     CheckTrackers, PingQueue; cmd/relay prints them).
//   - Queue: River (github.com/riverqueue/river) over its SQLite driver (the
//     embedded default, one file under the state directory, on the same
//     modernc.org/sqlite relay's graph store uses) or its pgx v5 driver
//     (`--queue postgres://…`, shared by any number of processes). A
//     delivery id table written in the same transaction as the job insert
//     drops replayed deliveries; River's unique jobs (by the issue key, over
//     the queued and running states) coalesce a trigger into a job that is
//     already waiting or running. A job records the commit it scopes once, so
//     a retry scopes the same tree.
//   - Server: POST /webhooks/{github,gitlab,jira}, GET /healthz, /readyz,
//     /metrics.
//     A request is answered once its job is committed to the queue; the
//     pipeline never runs inside a request. A delivery without its
//     signature header (SignedParser) is refused unread; a trigger its
//     repository switches off (Config.Allows) starts nothing; bodies are read
//     within intake_bytes over all requests (503 and Retry-After beyond);
//     issue keys are normalised (NormalizeRef); a comment command passes
//     the source's PermissionCheck (Jira: project roles and groups;
//     GitLab: gitlab.command_min_access, asked of the members API); new
//     jobs are rate-limited per author and per repository (token buckets,
//     limits.author_per_hour and repository_per_hour; 429 and Retry-After),
//     taken atomically before the enqueue: in memory on the embedded queue,
//     in the relay_rate table shared by all processes on PostgreSQL
//     (ratelimit.go).
//     On shutdown /readyz answers 503 for shutdown_delay before the listener
//     closes.
//   - Budget: limits.cost_per_hour and cost_per_day over all jobs, in the
//     relay_cost table of the queue's database (shared on PostgreSQL); a
//     job that would pass them waits in the queue (budget.go).
//   - Recovery: the embedded queue takes back on start the jobs its previous
//     process left running; on PostgreSQL worker processes heartbeat
//     (relay_worker, every `heartbeat`) and the jobs of one silent for 3
//     heartbeats are taken back (recover.go).
//   - Worker: placeholder comment, mirror fetch, worktree at the recorded
//     commit, incremental index in a per-repository store, the Scoper, the
//     report edited into the same comment; retries with backoff for transient
//     failures, and, when a job finally fails, a last edit that keeps the
//     issue's last good report (kept in the queue's database, table
//     relay_report, so any process on a shared queue can restore it;
//     lastgood.go) and adds a short note with the job id below it; the
//     error goes to the log only.
//   - Mirrors: one bare mirror per repository, a detached worktree per job,
//     tokens handed to git through GIT_CONFIG_* environment variables only
//     (a repository's token_env, else a tracker's tracker.GitCredentials:
//     a GitHub App's installation token, the GitLab token).
//   - A GitHub App at organisation scale (apps.go, config_app.go): with
//     app_id and no installation_id, the repositories of every
//     installation, listed at start, kept current from installation and
//     installation_repositories deliveries and filtered by
//     github.installations; reports keep each installation's posting rate
//     (GitHub's secondary limits, postlimit.go); a delivery is also
//     deduplicated on what it reports (tracker.Trigger.SemanticID), so a
//     repository webhook and the App's deliver a comment once.
//   - ReportBody: the comment a report becomes, shared with `relay scope
//     --issue … --post` so both post the same body for an issue and commit;
//     the workers put ReportHead above it: the commit and how fresh the
//     index was (cold, incremental, or unchanged and how old; the time of
//     the store's last write is kept beside it, freshness.go).
//   - dry_run: every comment the workers would post or edit is logged and
//     counted (relay_dry_run_posts_total), nothing is posted (dryrun.go).
//   - Related issues: each report's localization is kept in the queue's
//     database (relay_localization); a new report lists the earlier issues
//     of its repository that overlap most and says "possible duplicate of
//     #N" at DuplicateThreshold or more (related.go).
//   - Status page: GET / when status.enabled, behind status.token_env: the
//     queue's jobs and the last reports, html/template (status.go).
//
// The trackers themselves (tracker/github, tracker/gitlab, tracker/jira)
// and the scoping
// pipeline (agent, retrieve) are reached through interfaces — tracker.Tracker,
// tracker.WebhookParser, Scoper and Indexer — wired in cmd/relay.
//
// Pipeline is the Indexer (and Scoper) relay serve runs: a job's worktree
// indexed and scoped through package workspace, the code relay index and
// relay scope run; AgentConfig turns relay.yaml's model section into the
// agent.Config its agent is built from, and advice.ConfigNamesFor(advice.Operator) names that
// section's keys in the advice added to the agent's errors (the log, the
// comment). BuildTrackers connects the trackers the configuration names,
// Permissions the Jira and GitLab command checks. Access connects the same clients for
// one issue from credentials a caller read (relay scope --issue --post);
// EnqueueBacklog puts a backlog's issues on the queue (relay batch --queue).
// workspace never imports serve.
//
// # DESIGN
//
// Delivery guarantees come from the queue's transaction: a 202 is sent only
// after the delivery id row and the job row are committed together, so a
// crash before the commit loses nothing the sender was told was accepted
// (the sender retries), and a crash after it leaves the job in the queue.
// Execution is at least once — a job whose worker died is taken back at
// once (recover.go), and River still rescues any other once its lease
// (RescueStuckJobsAfter, longer than the job timeout) has passed — and the
// report is an idempotent edit of one comment found by
// tracker.ReportMarker, so running a job twice still leaves one report.
//
// # Review jobs
//
// A repository with review: true also gets review jobs (review.go): a pull
// request's or merge request's trigger (tracker.ReasonReview) is queued
// under its own key, one per head commit, and its worker fetches the
// mirror, diffs the change request's head ref against the merge base with
// its target branch, indexes the head and posts the Reviewer's context
// (Pipeline: workspace.Review, published as reports are) as the one review
// comment, through tracker.Reviewer.
package serve
