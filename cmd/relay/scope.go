package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

func init() { commands = append(commands, newScopeCmd) }

// scopeFlags are relay scope's flags.
type scopeFlags struct {
	f      llmFlags
	file   string
	format string
	out    string
	ref    string
	post   bool
}

func newScopeCmd(g *globals) *cobra.Command {
	var o scopeFlags
	cmd := &cobra.Command{
		Use:   "scope [issue text | -]",
		Short: "Scope one issue: planner, retrievers and gap detector write a scoping report",
		Long: `Scope one issue. The issue comes from the arguments (joined by spaces), from --file FILE,
from stdin when the only argument is "-", or from GitHub or Jira with --issue (title, body and
comments, through the same clients as relay serve; credentials from GITHUB_TOKEN and
GITHUB_API_URL for GitHub Enterprise, or JIRA_URL with JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or
JIRA_PAT (Data Center), Cloud detected from *.atlassian.net unless JIRA_CLOUD is set). --post
then posts the report on the issue, or updates the one posted before, exactly as the bot does.
At most 256 KiB of the issue are read; the report says when the rest was cut.
The report is Markdown (--format md) or JSON
(--format json: the structured report plus retrievals, usage and the transcript path; the schema
is documented in package agent). Progress and a token/cost summary go to stderr.
Every text of the report, in either format, is made safe to post first (package internal/publish):
secrets redacted, HTML, images, unsafe links, mentions and cross-references to other repositories'
issues neutralised; the JSON's issue field is the issue so published, not the raw text.`,
		Example: `  relay scope "Customers receive the same SMS twice"
  relay scope --file examples/issues/sms-duplicates.md --format json --out scope.json
  gh issue view 42 --json body -q .body | relay scope -
  GITHUB_TOKEN=... relay scope --issue github:acme/shop#42 --post
  JIRA_URL=https://acme.atlassian.net JIRA_EMAIL=... JIRA_API_TOKEN=... relay scope --issue jira:SHOP-42`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	o.f.register(cmd.Flags())
	cmd.Flags().StringVar(&o.file, "file", "", "read the issue from FILE")
	cmd.Flags().StringVar(&o.format, "format", "md", "output format: md or json")
	cmd.Flags().StringVar(&o.out, "out", "", "write the report to FILE instead of stdout")
	cmd.Flags().StringVar(&o.ref, "issue", "", "fetch the issue from its tracker: github:owner/name#42, gitlab:group/name#42 or jira:KEY-123")
	cmd.Flags().BoolVar(&o.post, "post", false, "post the report on the --issue (or update the one relay posted before)")
	return cmd
}

// run scopes the issue: with a model when one is configured, offline
// (search only) otherwise.
func (o *scopeFlags) run(cmd *cobra.Command, g *globals, args []string) error {
	if err := o.check(args); err != nil {
		return err
	}
	var (
		issue   string
		tracked tracker.Issue
		tr      tracker.Tracker
		err     error
	)
	if o.ref == "" {
		if issue, err = readIssue(g.stdin, o.file, args); err != nil {
			return err
		}
	}
	root, err := g.repoRoot()
	if err != nil {
		return err
	}
	ctx, cancel := o.f.runContext(cmd.Context())
	defer cancel()
	// The model settings are checked before the tracker is asked.
	sess, err := o.f.newAgent(ctx, g, root, progressPrinter(g.stderr))
	offline := errors.Is(err, errNoEndpoint)
	if err != nil && !offline {
		return err
	}
	if sess != nil {
		defer sess.Close()
	}
	text := capIssue(g, "issue", issue)
	if o.ref != "" {
		if tracked, tr, err = issueFromTracker(ctx, g, o.ref); err != nil {
			return err
		}
		text = warnCut(g, "issue", tracked.Text())
	}
	sc, err := g.scopeIssue(ctx, root, sess, serve.OwnRepo(tracked.Ref), text)
	if err != nil {
		return err
	}
	body := sc.Markdown + "\n"
	if offline {
		body = withHint(sc.Markdown) + "\n"
	}
	if o.format == "json" {
		body = string(sc.JSON)
	}
	// The report is written, and with --post posted without the hint.
	if err := writeOutput(g, o.out, body); err != nil {
		return err
	}
	if o.post {
		if err := postReport(ctx, g, tr, tracked, root, sc.Markdown, !offline); err != nil {
			return err
		}
	}
	if s := sc.Scoping; s != nil {
		writeUsage(g.stderr, s.Usage, s.Transcript, s.Stopped, s.Duration)
	}
	return nil
}

// scopeIssue scopes issue in root's workspace (workspace.Scope): with
// sess's agent, or with none (nil) the offline report.
func (g *globals) scopeIssue(ctx context.Context, root string, sess *workspace.Session, repo string, issue tracker.Text) (workspace.Scoped, error) {
	o := workspace.ScopeOptions{Repo: repo}
	if sess != nil {
		o.Agent = sess.Agent
	} else {
		var done func()
		o.Offline, done = g.offlineOptions(root)
		defer done()
	}
	sc, err := g.ws(root).Scope(ctx, issue, o)
	switch {
	case err == nil:
		return sc, nil
	case sess == nil:
		return sc, offlineErr("scope", err)
	}
	return sc, sess.Explain(err)
}

// check refuses flag combinations that cannot work, before anything runs.
func (o *scopeFlags) check(args []string) error {
	switch {
	case o.format != "md" && o.format != "json":
		return usageErr(fmt.Errorf("--format %q: want md or json", o.format))
	case o.post && o.ref == "":
		return usageErr(errors.New("--post needs --issue: it posts the report on that issue"))
	case o.ref != "" && (o.file != "" || len(args) > 0):
		return usageErr(errors.New("give the issue either with --issue or as text (arguments, --file, -), not both"))
	}
	return nil
}

// readIssue takes the issue from exactly one of: --file, "-" (stdin), args.
func readIssue(stdin io.Reader, file string, args []string) (string, error) {
	var text string
	switch {
	case file != "" && len(args) > 0:
		return "", usageErr(errors.New("give the issue either as arguments or with --file, not both"))
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("read issue: %w", err)
		}
		defer f.Close()
		b, err := tracker.ReadHead(f)
		if err != nil {
			return "", fmt.Errorf("read issue: %w", err)
		}
		text = string(b)
	case len(args) == 1 && args[0] == "-":
		b, err := tracker.ReadHead(stdin)
		if err != nil {
			return "", fmt.Errorf("read issue from stdin: %w", err)
		}
		text = string(b)
	case len(args) > 0:
		text = strings.Join(args, " ")
	default:
		return "", usageErr(errors.New(`no issue given: pass its text as arguments, --file FILE, or "-" to read stdin`))
	}
	if strings.TrimSpace(text) == "" {
		return "", usageErr(errors.New("the issue is empty"))
	}
	return text, nil
}

// capIssue cuts an issue text (or a question, a ticket: what) at
// tracker.MaxTextBytes (the model and the report show a note that it was
// cut) and says so on stderr.
func capIssue(g *globals, what, text string) tracker.Text {
	return warnCut(g, what, tracker.CapText(text))
}

// warnCut says on stderr that a text was cut, if it was.
func warnCut(g *globals, what string, t tracker.Text) tracker.Text {
	if t.Cut {
		fmt.Fprintf(g.stderr, "relay: the %s is longer than %d KiB; only its first %d KiB are read\n", what, tracker.MaxTextBytes>>10, tracker.MaxTextBytes>>10)
	}
	return t
}

// writeOutput writes body to path (atomically) or, when path is "", stdout.
func writeOutput(g *globals, path, body string) error {
	if path == "" {
		_, err := io.WriteString(g.stdout, body)
		return err
	}
	return writeFileAtomic(path, []byte(body))
}

// writeFileAtomic writes b whole (workspace.WriteFile), so a reader (or a
// resumed batch) never sees a half-written report. Like stdout, the file
// gets the text through the egress filter.
func writeFileAtomic(path string, b []byte) error {
	return workspace.WriteFile(path, []byte(egress.Default().String(string(b))))
}
