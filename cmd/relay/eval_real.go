package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/eval"
)

// realFlags are relay eval real's flags.
type realFlags struct {
	set, cache, out string
	goProxy         string // index.Options.GoProxy
	repos           []string
	asJSON          bool
}

func newEvalRealCmd(g *globals) *cobra.Command {
	var f realFlags
	cmd := &cobra.Command{
		Use:   "real --set DIR [--repo NAME]... [--cache DIR] [--out DIR]",
		Short: "Measure localization on real tracker issues with their merged fixes (git bundles of the base trees)",
		Long: `Real runs the localization eval on a real-issue set: a folder holding instances.jsonl
(instance_id, repo, bundle, ref, problem_statement, gold_files, patch: the issue text and
the merged fix) and the git bundles holding each instance's base tree. Each base tree is
checked out once into the cache (git archive of its branch; keyed by the bundle's SHA-256
and the branch's commit, so a replaced bundle or a moved branch is checked out anew), indexed (graph + search index,
incremental on a rerun) and localized offline, next to plain BM25 over whole files.

Gold files are the set's gold_files that are source code of the base tree (release notes,
tests and files the fix adds are left out); gold functions are derived from the patch
against the checkout's graph, as relay eval derive does, for every language relay indexes.
A language without a graph frontend is scored on files only (its function columns say -);
rerunning the command once its frontend exists gives the function figures.

The table has one row per method over all instances, then one per repository and method.
--out DIR also writes figures.txt, results.json (per-instance predictions and hits) and
instances.jsonl (the instances as scored, with derived gold functions).

Example:
  relay eval real --set ../shared/realissues --repo dayjs --out /tmp/real-dayjs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd.Context(), g) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.set, "set", "", "folder holding instances.jsonl and the git bundles")
	fl.StringSliceVar(&f.repos, "repo", nil, `only instances of this repository ("dayjs" or "iamkun/dayjs"; repeatable)`)
	fl.StringVar(&f.cache, "cache", "", "folder for the bare clones, checkouts and their indexes (default: the user cache folder, relay/realissues)")
	fl.StringVar(&f.out, "out", "", "also write figures.txt, results.json and instances.jsonl here")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	fl.StringVar(&f.goProxy, "go-proxy", "", "GOPROXY the go command may download modules from while indexing a checkout, as relay index --go-proxy (env RELAY_GO_PROXY); default off: the module cache only")
	return cmd
}

func (f *realFlags) run(ctx context.Context, g *globals) error {
	if f.set == "" {
		return usageErr(errors.New("eval real needs --set DIR, the folder holding instances.jsonl and the bundles"))
	}
	if fi, err := os.Stat(f.set); err != nil || !fi.IsDir() {
		return usageErr(fmt.Errorf("--set %s is not a directory", f.set))
	}
	if f.goProxy == "" {
		f.goProxy = g.getenv("RELAY_GO_PROXY")
	}
	if f.cache == "" {
		dir, err := eval.DefaultRealCache()
		if err != nil {
			return usageErr(fmt.Errorf("%w: pass --cache DIR", err))
		}
		f.cache = dir
	}
	rep, err := eval.RunRealIssues(ctx, eval.RealOptions{Set: f.set, Cache: f.cache, Repos: f.repos,
		Prepare: g.evalPrepare(f.goProxy), Progress: evalProgress(g.stderr)})
	if err != nil {
		return err
	}
	if n := len(rep.Excluded); n > 0 {
		fmt.Fprintf(g.stderr, "eval: %d instance(s) not scored (the fix changes no source file of the base tree, it only adds files)\n", n)
	}
	if f.out != "" {
		if err := rep.WriteFiles(f.out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return printEval(g, f.asJSON, rep, rep.Table(), rep.Report)
}
