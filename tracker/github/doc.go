// Package github is relay's GitHub tracker: it owns the REST client that
// fetches an issue and keeps its one report comment (tracker.Tracker), the
// GitHub App authentication, and the webhook parser that turns a delivery
// into a tracker.Trigger (tracker.WebhookParser).
//
// Everything that talks to GitHub goes through google/go-github: its client
// for the REST calls (pagination, GitHub Enterprise URLs, the rate-limit
// errors) and its webhook helpers (ValidateSignature, ValidatePayloadFromBody,
// ParseWebHook), which compare the HMAC-SHA256 signature in constant time.
//
// # Authentication
//
// A token (a personal access token or any installation token) or a GitHub
// App: the app id and private key sign a short-lived JWT (RS256, golang-jwt)
// that is exchanged for installation tokens through go-github's
// Apps.CreateInstallationToken; tokens are cached until a minute before they
// expire. The installation is Options.InstallationID, the webhook delivery's
// (Client.ForInstallation), or found from the repository on first use.
// An App client also hands git the installation token of a repository
// (Client.GitToken, tracker.GitCredentials), so the bot's mirrors need no
// token of their own.
// Tokens never appear in logs or errors: go-github strips them from URLs and
// they travel only in the Authorization header.
//
// # Triggers
//
// issues.opened (when Rules.OnOpened), issues.labeled with a configured
// label, and issue_comment.created whose body starts with a command word from
// an author whose author_association is allowed. Comments on pull requests
// are ignored: relay scopes issues, and a pull request is a change to review
// (relay review), not a problem to scope. The bot's own comments (BotLogin,
// or any comment carrying tracker.ReportMarker) and other bots (user type
// Bot, logins ending in [bot]) never trigger.
//
// # Rate limits
//
// go-github's *RateLimitError (primary limit; reset time),
// *AbuseRateLimitError (secondary limit; Retry-After, a minute when absent as
// GitHub documents), 5xx and network errors become tracker.RetryableError
// with After set, so the queue waits as GitHub asks instead of hammering it.
//
// # Pull requests
//
// With tracker.Rules.Review, pull_request deliveries (opened, synchronize,
// reopened) and /relay review comments on a pull request are review
// triggers (review.go), carrying the head commit and target branch when
// the event names them; the review comment is the pull request's report
// comment, kept as an issue's is (UpsertReview).
package github
