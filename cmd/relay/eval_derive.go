package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/workspace"
)

// deriveFlags are relay eval derive's flags.
type deriveFlags struct {
	module, from, to string
	repo, diffFile   string
	id, statement    string
	statementFile    string
	allowNoFunctions bool
}

func newEvalDeriveCmd(g *globals) *cobra.Command {
	var f deriveFlags
	cmd := &cobra.Command{
		Use:   "derive (--module M --from V1 --to V2 | --repo DIR --diff FILE) [--id ID --statement TEXT]",
		Short: "Build an eval instance from a real fix: gold files and functions from its diff",
		Long: `Derive computes the gold answer of a localization instance from the fix itself:
the source files the fix changes in the pre-fix tree and the functions and methods
whose lines it deletes, modifies or inserts into (tests, testdata, vendor, generated
and new files are left out and listed on stderr). Go files are parsed directly; for
every other language relay indexes (TypeScript/JavaScript, Python, and any frontend
added later) the checkout is indexed in memory and each changed line is given to the
innermost function or method node of the graph holding it. A source file of a language
the graph has nothing for is gold with its functions unknown.

The fix is either the change between two versions of a Go module (both fetched with
go mod download; the instance's checkout is the --from version) or a unified diff
against a checkout (--repo DIR --diff FILE, e.g. git diff BEFORE AFTER).

With --id and --statement (or --statement-file: the issue text) it prints one
instance line for relay eval --instances; without, it prints the gold answer as JSON.

Example:
  relay eval derive --module github.com/spf13/pflag --from v1.0.6 --to v1.0.7 \
    --id pflag-fix-1 --statement-file issue.txt >> instances.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd.Context(), g) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.module, "module", "", "Go module path whose versions bracket the fix")
	fl.StringVar(&f.from, "from", "", "module version before the fix (the instance's checkout)")
	fl.StringVar(&f.to, "to", "", "module version with the fix")
	fl.StringVar(&f.repo, "repo", "", "pre-fix checkout the --diff applies to")
	fl.StringVar(&f.diffFile, "diff", "", "unified diff of the fix (- for stdin)")
	fl.StringVar(&f.id, "id", "", "instance_id (a plain directory name)")
	fl.StringVar(&f.statement, "statement", "", "problem statement (the issue text)")
	fl.StringVar(&f.statementFile, "statement-file", "", "read the problem statement from a file")
	fl.BoolVar(&f.allowNoFunctions, "files-only", false, "do not warn when the fix changes no function")
	return cmd
}

// check refuses contradictory or incomplete flags and reads
// --statement-file into the statement.
func (f *deriveFlags) check() error {
	byModule := f.module != "" || f.from != "" || f.to != ""
	byDiff := f.repo != "" || f.diffFile != ""
	switch {
	case byModule && byDiff:
		return usageErr(errors.New("give either --module/--from/--to or --repo/--diff, not both"))
	case byModule && (f.module == "" || f.from == "" || f.to == ""):
		return usageErr(errors.New("--module needs --from and --to versions (e.g. --from v1.2.3 --to v1.2.4)"))
	case byDiff && (f.repo == "" || f.diffFile == ""):
		return usageErr(errors.New("--diff needs --repo, the pre-fix checkout the diff applies to"))
	case !byModule && !byDiff:
		return usageErr(errors.New("derive needs a fix: --module M --from V1 --to V2, or --repo DIR --diff FILE"))
	}
	if f.statementFile != "" {
		if f.statement != "" {
			return usageErr(errors.New("give --statement or --statement-file, not both"))
		}
		b, err := os.ReadFile(f.statementFile)
		if err != nil {
			return fmt.Errorf("read --statement-file: %w", err)
		}
		f.statement = string(b)
	}
	f.statement = strings.TrimSpace(f.statement)
	if (f.id == "") != (f.statement == "") {
		return usageErr(errors.New("an instance needs both --id and --statement (or neither, to print only the gold answer)"))
	}
	return nil
}

// run derives the gold answer and prints it, or the instance line.
func (f *deriveFlags) run(ctx context.Context, g *globals) error {
	if err := f.check(); err != nil {
		return err
	}
	var (
		gold eval.Gold
		repo string // the instance's module version
		err  error
	)
	if f.module != "" {
		gold, err = eval.DeriveFromModules(ctx, f.module, f.from, f.to)
		repo = f.module + "@" + f.from
	} else {
		gold, err = f.fromDiff(ctx, g)
	}
	if err != nil {
		return err
	}
	for _, s := range gold.Skipped {
		fmt.Fprintf(g.stderr, "derive: skipped %s\n", s)
	}
	in, err := gold.Instance(f.id, f.statement, repo)
	if err != nil {
		return err
	}
	if len(gold.Functions) == 0 && !f.allowNoFunctions {
		fmt.Fprintln(g.stderr, "derive: warning: no function or method changed (only declarations outside functions); the instance scores files only")
	}
	enc := json.NewEncoder(g.stdout)
	enc.SetEscapeHTML(false)
	if f.id == "" {
		enc.SetIndent("", "  ")
		return enc.Encode(gold)
	}
	return enc.Encode(in)
}

// fromDiff derives the gold answer of --diff against the checkout --repo
// (workspace.GoldFromDiff).
func (f *deriveFlags) fromDiff(ctx context.Context, g *globals) (eval.Gold, error) {
	root, err := filepath.Abs(f.repo)
	if err != nil {
		return eval.Gold{}, err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return eval.Gold{}, usageErr(fmt.Errorf("--repo %s is not a directory", f.repo))
	}
	diffs, err := readDiff(g, f.diffFile, "--diff")
	if err != nil {
		return eval.Gold{}, err
	}
	return workspace.New(g.wsOptions(root)).GoldFromDiff(ctx, diffs)
}
