// Package gitlab is relay's GitLab tracker, for gitlab.com and self-managed
// GitLab: it owns the REST client that fetches an issue and keeps its one
// report note (tracker.Tracker), the check of a commenter's access level
// (MayCommand), the credential check of relay serve --check-config
// (CheckProject), and the webhook parser that turns an issue or note
// delivery into a tracker.Trigger (tracker.WebhookParser).
//
// Everything that talks to GitLab goes through the official Go client,
// gitlab.com/gitlab-org/api/client-go: its REST services (issues, notes,
// project members, projects, the current user), its pagination and error
// types, and its webhook event types and ParseWebhook. The client's own
// retries are off: a transient failure becomes a tracker.RetryableError
// with the wait GitLab asked for (Retry-After, RateLimit-Reset), and the
// bot's queue retries the whole job, as it does for GitHub and Jira.
//
// # Authentication
//
// A project access token (the bot is then the token's bot user) or a bot
// user's personal access token, sent as PRIVATE-TOKEN. It needs the api
// scope (read the issue, write notes, read members) and read_repository
// for the mirror: the client hands git the same token (Client.GitToken,
// tracker.GitCredentials) so a repository needs no token of its own.
// Tokens never appear in logs or errors: the client sends them only in a
// header and its errors name the method and URL, never the header.
//
// # Triggers
//
// The webhook is verified by X-Gitlab-Token, the secret token set on the
// GitLab webhook, compared in constant time (crypto/subtle). Issue Hook
// with action open (when Rules.OnOpened, or when the new issue carries a
// trigger label), action update whose label changes add a trigger label,
// and Note Hook on an issue whose note starts with a command word. Notes
// on merge requests, commits and snippets, system notes, and notes by the
// bot (Rules.BotLogin, GitLab bot users of project and group access
// tokens, or any note carrying tracker.ReportMarker) never trigger.
//
// # The report note
//
// Fetch leaves out internal notes: only members may read them, and the
// report, which may quote what the model read, is a note everyone who
// sees the issue reads.
//
// One note per issue, found by tracker.ReportMarker (and BotUsername) and
// edited in place. Before it is posted, a line that GitLab would run as a
// quick action (/close, /label …, with the bot's role) is escaped and
// merge request references lose their link (inert); internal/publish has
// already made the rest safe, as for GitHub.
//
// A note's command needs a member with at least the configured access
// level: GitLab's payload does not say, so the bot asks the members API
// (MayCommand: GET /projects/:id/members/all/:user_id, which includes
// members inherited from groups).
//
// # Deliveries
//
// The delivery id is the Idempotency-Key header (GitLab 17.4 and later),
// which GitLab keeps across the retries of one delivery, else
// X-Gitlab-Event-UUID, the event's id, which a retry repeats too; a
// delivery with neither (an old GitLab) is identified by the hash of its
// body, which a retry repeats as well.
//
// # Merge requests
//
// With tracker.Rules.Review, Merge Request Hook deliveries (open, reopen,
// update with new commits) and /relay review notes on a merge request are
// review triggers (reviewhook.go); the review note is kept on the merge
// request's notes as the report note is on an issue's (UpsertReview).
package gitlab
