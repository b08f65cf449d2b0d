package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
)

func init() { commands = append(commands, newIndexCmd) }

func newIndexCmd(g *globals) *cobra.Command {
	var full bool
	var maxErrors int
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build or update the code graph of the repository",
		Long: `Index builds the code graph of the repository (--repo, default .) into the store
(--store, default <repo>/.relay). A second run re-indexes only the packages whose files changed.
An interrupted run leaves the previous graph intact.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			dir, err := g.storeDir(root)
			if err != nil {
				return err
			}
			_, statErr := os.Stat(dir)
			fresh := errors.Is(statErr, os.ErrNotExist)
			st, err := g.openStore(cmd.Context(), root, true)
			if err != nil {
				return err
			}
			prog := newProgress(g.stderr, isTerminal(g.stderr))
			sum, err := index.Run(cmd.Context(), st, index.Options{Root: root, Logger: g.log, Progress: prog.update, Full: full})
			prog.done()
			st.Close()
			if err != nil {
				if fresh {
					// Nothing was ever committed: leave no empty store behind.
					os.RemoveAll(dir)
				}
				return fmt.Errorf("index %s: %w", root, err)
			}
			printSummary(g.stdout, root, sum, maxErrors)
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "re-index everything, ignoring content hashes")
	cmd.Flags().IntVar(&maxErrors, "max-errors", 20, "how many type-check errors to list (all are counted)")
	return cmd
}

// progress renders index progress: one rewritten line on a terminal, one
// line per phase otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	phase string
	start time.Time
	last  time.Time
	width int
}

func newProgress(w io.Writer, tty bool) *progress {
	return &progress{w: w, tty: tty, start: time.Now()}
}

func (p *progress) update(ev index.Progress) {
	if !p.tty {
		if ev.Phase != p.phase {
			p.phase = ev.Phase
			fmt.Fprintf(p.w, "index: %s (%.1fs)\n", ev.Phase, time.Since(p.start).Seconds())
		}
		return
	}
	now := time.Now()
	if ev.Phase == p.phase && now.Sub(p.last) < 50*time.Millisecond && ev.Done != ev.Total {
		return
	}
	p.phase, p.last = ev.Phase, now
	line := fmt.Sprintf("%s %d/%d %s", ev.Phase, ev.Done, ev.Total, ev.Item)
	if ev.Total == 0 {
		line = fmt.Sprintf("%s %s", ev.Phase, ev.Item)
	}
	if len(line) > 100 {
		line = line[:100]
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
}

func (p *progress) done() {
	if p.tty && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
}

func printSummary(w io.Writer, root string, s index.Summary, maxErrors int) {
	if s.Unchanged {
		fmt.Fprintf(w, "Index of %s is up to date (%d files checked in %s).\n", root, s.Files, s.Duration.Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "Indexed %s in %s: %d packages, %d files (%d changed, %d deleted).\n",
			root, s.Duration.Round(time.Millisecond), s.Packages, s.Files, s.Changed, s.Deleted)
	}
	fmt.Fprintf(w, "Nodes: %d (%s)\n", s.Stats.TotalNodes(), kindCounts(s.Stats.Nodes, graphdb.NodeKinds))
	fmt.Fprintf(w, "Edges: %d (%s)\n", s.Stats.TotalEdges(), kindCounts(s.Stats.Edges, graphdb.EdgeKinds))
	if len(s.Phases) > 0 {
		names := make([]string, 0, len(s.Phases))
		for n := range s.Phases {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, 0, len(names))
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %s", n, s.Phases[n].Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "Time: %s\n", strings.Join(parts, ", "))
	}
	if len(s.Errors) == 0 {
		fmt.Fprintln(w, "Errors: none")
		return
	}
	fmt.Fprintf(w, "Errors: %d (packages that failed to type-check are indexed as far as possible)\n", len(s.Errors))
	for i, d := range s.Errors {
		if i == maxErrors {
			fmt.Fprintf(w, "  … %d more (--max-errors N to list more)\n", len(s.Errors)-maxErrors)
			break
		}
		fmt.Fprintf(w, "  %s: %s (%s)\n", d.Pos, d.Msg, d.Package)
	}
}

// kindCounts renders "function 12, type 3" in the order of kinds, skipping zeros.
func kindCounts[K ~string](m map[K]int, kinds []K) string {
	var parts []string
	for _, k := range kinds {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
