package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/review"
	"github.com/relayhq/relay/udiff"
	"github.com/relayhq/relay/workspace"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newReviewCmd) }

func newReviewCmd(g *globals) *cobra.Command {
	var (
		diffPath string
		depth    string
		asJSON   bool
		budget   int
		ef       embedFlags
	)
	cmd := &cobra.Command{
		Use:   "review --diff FILE|-",
		Short: "Review context for a diff: changed symbols, callers, callees, blast radius, past feedback",
		Long: `Review reads a unified diff (git diff output; - for stdin) and gathers what a reviewer
needs beside it from the code graph: the symbols the hunks touch (new-side lines for added and
modified code, old-side lines for deleted code), their callers (1 hop at --depth fast, 2 at
standard and deep), callees, the blast radius with a risk score, at deep the semantic
neighbours of the changed symbols, and the closest past review comments recorded with
'relay review feedback' (5 helpful, 3 not helpful). The whole Markdown fits --budget tokens;
a file the diff lists more than once is reviewed and listed once.
Run 'relay index' first.

Examples:
  git diff main... | relay review --diff -
  relay review --diff change.patch --depth deep --budget 800
  relay review feedback add --file internal/auth/token.go --line 42 --comment "check expiry before use" --accepted`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if diffPath == "" {
				return usageErr(errors.New("review needs --diff FILE (or --diff - to read the diff from stdin)"))
			}
			d, err := review.ParseDepth(depth)
			if err != nil {
				return usageErr(fmt.Errorf("--depth: %w", err))
			}
			if budget < review.MinBudget {
				return usageErr(fmt.Errorf("--budget %d: want at least %d tokens, so that the context can say what it left out", budget, review.MinBudget))
			}
			diffs, err := readDiff(g, diffPath, "diff")
			if err != nil {
				return err
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			embed := func() (retrieve.Embedder, error) { return g.embedder(ef) }
			rc, err := g.ws(root).Review(cmd.Context(), diffs, workspace.ReviewOptions{Depth: d, Embedder: embed})
			if err != nil {
				return cliErr(err)
			}
			warnSkippedFeedback(g.stderr, rc.FeedbackPath, rc.Skipped)
			md := rc.Markdown(budget)
			if asJSON {
				return printJSON(g.stdout, struct {
					review.Context
					Markdown string `json:"markdown"`
					Tokens   int    `json:"markdown_tokens"`
				}{rc.Context, md, review.EstimateTokens(md)})
			}
			fmt.Fprint(g.stdout, md)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&diffPath, "diff", "", "unified diff to review: a file, or - for stdin")
	f.StringVar(&depth, "depth", "standard", "fast (direct callers), standard (2 hops of callers) or deep (+ semantic neighbours)")
	f.BoolVar(&asJSON, "json", false, "print the context as JSON (with the Markdown in a field)")
	f.IntVar(&budget, "budget", review.DefaultBudget, "token budget of the whole Markdown context, file list included (a token is counted as 4 bytes; at least 100)")
	ef.register(f)
	cmd.AddCommand(newFeedbackCmd(g))
	return cmd
}

func newFeedbackCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "feedback",
		Short: "Record which review comments were helpful (stored in feedback.jsonl in the store directory, or --state)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErr(errors.New("feedback needs a sub-command: add or import"))
		},
	}
	var (
		file, comment      string
		line               int
		accepted, rejected bool
	)
	add := &cobra.Command{
		Use:   "add --file F --line N --comment TEXT --accepted|--rejected",
		Short: "Record one review comment and whether it was accepted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if accepted == rejected {
				return usageErr(errors.New("say whether the comment helped: exactly one of --accepted or --rejected"))
			}
			item := review.Feedback{File: file, Line: line, Comment: comment, Accepted: accepted}
			if err := item.Validate(); err != nil {
				return usageErr(err)
			}
			st, err := g.feedbackStore()
			if err != nil {
				return err
			}
			if err := st.Add(item); err != nil {
				return err
			}
			verdict := "rejected"
			if accepted {
				verdict = "accepted"
			}
			fmt.Fprintf(g.stdout, "Recorded %s feedback on %s:%d in %s\n", verdict, file, line, st.Path())
			return nil
		},
	}
	af := add.Flags()
	af.StringVar(&file, "file", "", "file the comment was made on (repo-relative)")
	af.IntVar(&line, "line", 0, "line the comment was made on")
	af.StringVar(&comment, "comment", "", "the review comment")
	af.BoolVar(&accepted, "accepted", false, "the comment was helpful")
	af.BoolVar(&rejected, "rejected", false, "the comment was not helpful")

	imp := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: `Import feedback lines {"file", "line", "comment", "accepted"} (- for stdin)`,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = g.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("open feedback file: %w", err)
				}
				defer f.Close()
				in = f
			}
			st, err := g.feedbackStore()
			if err != nil {
				return err
			}
			n, err := st.Import(in)
			if err != nil {
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			fmt.Fprintf(g.stdout, "Imported %d feedback item(s) into %s\n", n, st.Path())
			return nil
		},
	}
	cmd.AddCommand(add, imp)
	return cmd
}

// warnSkippedFeedback says which lines of the feedback store a review could
// not use; the review goes on with the others.
func warnSkippedFeedback(w io.Writer, path string, skipped []string) {
	if len(skipped) == 0 {
		return
	}
	shown := skipped
	if len(shown) > 3 {
		shown = append(shown[:3:3], "…")
	}
	fmt.Fprintf(w, "relay: warning: %s: %d damaged line(s) skipped (%s); fix or delete them\n", path, len(skipped), strings.Join(shown, "; "))
}

// feedbackStore opens the review feedback store of the repository, in
// relay's state directory (created if need be).
func (g *globals) feedbackStore() (*review.FeedbackStore, error) {
	root, err := g.repoRoot()
	if err != nil {
		return nil, err
	}
	st, err := g.ws(root).FeedbackStore()
	return st, cliErr(err)
}

// readDiff parses the unified diff at path ("-": stdin); label names it in
// errors ("diff", "--diff").
func readDiff(g *globals, path, label string) ([]udiff.FileDiff, error) {
	var in io.Reader = g.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", label, err)
		}
		defer f.Close()
		in = f
	}
	diffs, err := udiff.Parse(in)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", label, path, err)
	}
	return diffs, nil
}
