// Package jira is relay's Jira tracker, for Jira Cloud and Jira Data Center:
// it owns the REST client that fetches an issue and keeps its one report
// comment (tracker.Tracker) and the webhook parser that turns a delivery
// into a tracker.Trigger (tracker.WebhookParser).
//
// # Cloud and Data Center
//
// Cloud speaks REST v3: descriptions and comments are Atlassian Document
// Format, read with adf.ToMarkdown and written with adf.FromMarkdown; it
// authenticates with an account e-mail and API token (basic auth). Data
// Center speaks REST v2: descriptions and comments are wiki markup, written
// with adf.Wiki and read as they are (wiki markup is plain enough for the
// scoping pipeline); it authenticates with a personal access token (bearer).
//
// # Why not go-atlassian
//
// ctreminiom/go-atlassian is the maintained Go client for Atlassian's APIs,
// and it was the first choice. It is not used because (1) it is built for
// Atlassian Cloud: its Jira packages model the Cloud REST API, and Data
// Center, which relay must serve too, would still need a second client; (2)
// the bot calls four endpoints (get an issue, list, add and update its
// comments), which net/http covers in a few dozen lines with the error and
// rate-limit handling relay needs anyway; (3) its ADF model is replaced here
// by tracker/adf, which converts from markdown; and (4) the module is not
// served by the module proxy this project builds from (403), so depending on
// it would break `go mod download`.
//
// # The report comment
//
// Jira cannot hide text in a comment, so the marker is the least visible
// thing it renders: a final small grey paragraph "relay:report" (ADF textColor
// and subscript marks on Cloud, {color}~…~{color} on Data Center). The report
// is the comment whose last line is that marker (or that carries
// tracker.ReportMarker) and, when BotAccount is set, that the bot wrote.
//
// # Webhooks
//
// jira:issue_created (when Rules.OnOpened, or created with a trigger label),
// jira:issue_updated that adds a trigger label (changelog item "labels":
// toString holds it, fromString did not), and comment_created starting with
// a command word. Jira has no author associations: anyone Jira lets comment
// may use the command, so restrict commenting in Jira's permission scheme.
// The bot's own comments never trigger. With a secret, deliveries must carry
// X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body> (compared in
// constant time); without one, unsigned deliveries are accepted, for Jira
// versions that cannot sign. The delivery id is X-Atlassian-Webhook-Identifier
// or, where Jira sends none, a hash of the body, so a redelivery of the same
// body deduplicates.
//
// # Rate limits
//
// 429 and 5xx (and 408 and network errors) become tracker.RetryableError,
// with After from Retry-After when Jira sends it.
package jira
