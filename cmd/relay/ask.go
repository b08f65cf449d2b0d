package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/workspace"
)

func init() { commands = append(commands, newAskCmd) }

func newAskCmd(g *globals) *cobra.Command {
	var f llmFlags
	cmd := &cobra.Command{
		Use:   "ask [question]",
		Short: "Answer a question about the repository (a REPL when no question is given)",
		Long: `Answer a question about the repository with citations. With a question, answer it and exit.
Without one, start a REPL: one question per line, history in the store directory (or --state),
progress on stderr; Ctrl-C cancels the running question (not the REPL), Ctrl-D exits. When stdin
is not a terminal, each line read from it is one question.`,
		Example: `  relay ask "Where are SMS retries decided?"
  relay ask --model qwen2.5-coder:14b --base-url http://localhost:11434/v1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := strings.TrimSpace(strings.Join(args, " "))
			if len(args) > 0 && q == "" {
				// relay ask "$QUESTION" with an empty variable started a
				// REPL, which read stdin and exited 0 without a word.
				return usageErr(errors.New(`the question is empty: pass it as arguments (relay ask "where are retries decided?"), or none for the REPL`))
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			sess, err := f.newAgent(ctx, g, root, progressPrinter(g.stderr))
			if errors.Is(err, errNoEndpoint) {
				sess = nil
			} else if err != nil {
				return err
			}
			if sess != nil {
				defer sess.Close()
			}
			a := &asker{g: g, f: &f, root: root, sess: sess}
			if q != "" {
				return a.answer(ctx, q)
			}
			return a.repl(ctx)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

type asker struct {
	g    *globals
	f    *llmFlags
	root string
	sess *workspace.Session // nil: no endpoint, the offline report
}

// answer answers one question and prints the answer on stdout.
func (a *asker) answer(ctx context.Context, q string) error {
	ctx, cancel := a.f.runContext(ctx)
	defer cancel()
	text := capIssue(a.g, "question", q)
	if a.sess == nil {
		o, done := a.g.offlineOptions(a.root)
		res, err := a.g.ws(a.root).OfflineReport(ctx, text, o)
		done()
		if err != nil {
			return offlineErr("ask", err)
		}
		if _, err = fmt.Fprintln(a.g.stdout, withHint(res.Markdown)); err != nil {
			return err
		}
		return flushOut(a.g.stdout)
	}
	ans, err := a.sess.Ask(ctx, text.String())
	err = a.sess.Explain(err)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(a.g.stdout, ans.Markdown); err != nil {
		return err
	}
	if err := flushOut(a.g.stdout); err != nil {
		return err
	}
	writeUsage(a.g.stderr, ans.Usage, ans.Transcript, ans.Stopped, ans.Duration)
	return nil
}

// repl reads questions until EOF (Ctrl-D). Each question runs under its own
// context, cancelled by Ctrl-C (SIGINT) without leaving the REPL; SIGTERM
// ends the REPL.
func (a *asker) repl(ctx context.Context) error {
	// The root context is cancelled by the first SIGINT; the REPL decides
	// itself what a signal means, so it starts from an uncancelled one.
	base := context.WithoutCancel(ctx)
	next, closeInput, err := a.lineReader()
	if err != nil {
		return err
	}
	defer closeInput()
	for {
		line, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		q := strings.TrimSpace(line)
		switch q {
		case "":
			continue
		case "exit", "quit", ":q":
			return nil
		}
		terminated, err := a.runInterruptible(base, q)
		switch {
		case errors.Is(err, errNoEndpoint):
			return err // nothing can answer; say how to configure an endpoint
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.g.stderr, "relay: cancelled")
		case err != nil:
			fmt.Fprintf(a.g.stderr, "relay: %s\n", redact.Text(err.Error()))
		}
		if terminated {
			return nil
		}
	}
}

// runInterruptible answers q; SIGINT cancels it, SIGTERM cancels it and
// reports terminated.
func (a *asker) runInterruptible(base context.Context, q string) (terminated bool, err error) {
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	var term atomic.Bool
	go func() {
		select {
		case s := <-sigs:
			term.Store(s == syscall.SIGTERM)
			cancel()
		case <-done:
		}
	}()
	err = a.answer(ctx, q)
	close(done)
	cancel()
	return term.Load(), err
}

// lineReader returns a function reading one question: readline (editing,
// history in the state directory) on a terminal, plain lines otherwise.
func (a *asker) lineReader() (func() (string, error), func(), error) {
	if f, ok := a.g.stdin.(*os.File); ok && isTerminal(a.g.stdout) && readline.DefaultIsTerminal() && f == os.Stdin {
		hist, err := a.historyFile()
		if err != nil {
			return nil, nil, err
		}
		rl, err := readline.NewEx(&readline.Config{
			Prompt:          "relay> ",
			HistoryFile:     hist,
			InterruptPrompt: "^C",
			EOFPrompt:       "exit",
			Stdout:          terminal(a.g.stdout),
			Stderr:          a.g.stderr,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("start line editor: %w", err)
		}
		fmt.Fprintln(a.g.stderr, "Ask about the repository; Ctrl-C cancels a running question, Ctrl-D exits.")
		return func() (string, error) {
			for {
				line, err := rl.Readline()
				if errors.Is(err, readline.ErrInterrupt) {
					continue // Ctrl-C at the prompt clears the line
				}
				return line, err
			}
		}, func() { rl.Close() }, nil
	}
	// A bufio.Reader, not a Scanner: a question pasted as one long line is
	// read whole instead of ending the REPL with "token too long".
	br := bufio.NewReader(a.g.stdin)
	return func() (string, error) {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read question: %w", err)
		}
		if line == "" && err != nil {
			return "", io.EOF
		}
		return strings.TrimSuffix(line, "\n"), nil
	}, func() {}, nil
}

// historyFile returns the REPL history file (workspace.HistoryFile).
func (a *asker) historyFile() (string, error) {
	p, err := a.g.ws(a.root).HistoryFile()
	return p, cliErr(err)
}
