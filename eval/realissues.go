package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// DESIGN: real tracker issues. A real-issue set is a folder holding
// instances.jsonl (RealIssue lines: the issue text, the merged fix as a
// patch, the files it changes) and git bundles with each instance's base
// tree on a branch of its own. RunRealIssues checks each base tree out
// once into a cache keyed by the bundle's content and the branch's commit
// (bare clone of the bundle, then `git archive` of the branch), indexes it
// with Options.Prepare (incremental on a rerun), turns the RealIssue into
// an Instance and scores it as Run does.
//
// The gold files are the set's own gold_files restricted to source code
// that exists in the base tree (sets list release notes and the like,
// which localization never predicts); the gold functions are derived from
// the patch against the checkout's graph (GoldFromDiffGraph), so a
// language gets function-level figures as soon as its frontend indexes it
// — rerunning the same command is enough.

// RealIssue is one line of a real-issue set's instances.jsonl.
type RealIssue struct {
	ID         string   `json:"instance_id"`
	Repo       string   `json:"repo"`
	Bundle     string   `json:"bundle"`
	Ref        string   `json:"ref"`
	BaseCommit string   `json:"base_commit"`
	Problem    string   `json:"problem_statement"`
	GoldFiles  []string `json:"gold_files"`
	Patch      string   `json:"patch"`
}

// LoadRealIssues reads RealIssue lines (blank lines skipped, lines of
// any length); errors name the line and what it lacks.
func LoadRealIssues(r io.Reader) ([]RealIssue, error) {
	return loadJSONL(r, `{"instance_id", "repo", "bundle", "ref", "problem_statement", "gold_files", "patch"}`,
		func(ri *RealIssue) string { return ri.ID },
		func(ri *RealIssue) error {
			switch {
			case ri.Bundle == "" || ri.Ref == "" || strings.ContainsAny(ri.Bundle, `/\`) || strings.HasPrefix(ri.Ref, "-"):
				return errors.New("needs a bundle file name in the set's folder and its branch (ref)")
			case strings.TrimSpace(ri.Problem) == "":
				return errors.New("problem_statement is empty (give the issue's text)")
			case ri.Patch == "":
				return errors.New("patch is empty (give the merged fix as a unified diff)")
			}
			return checkGoldPaths("gold_files", ri.GoldFiles, false)
		})
}

// RepoName is the short name of the issue's repository ("dayjs" for
// "iamkun/dayjs").
func (ri RealIssue) RepoName() string {
	return ri.Repo[strings.LastIndex(ri.Repo, "/")+1:]
}

// CheckoutRealIssue returns the checkout of ri's base tree under
// cache/checkouts, making it first when missing: the bundle in set is
// cloned bare once into cache/git, and the branch ri.Ref is extracted with
// git archive (into a temporary folder renamed into place, so an
// interrupted checkout is redone, never half used).
//
// The cache is keyed by content, not by name: the bare clone by the
// SHA-256 of the bundle file (cache/git/<bundle>-<hash>.git) and the
// checkout by the commit ri.Ref names in it (cache/checkouts/<id>-<commit>),
// so a bundle replaced under the same name, or a branch moved to another
// commit, gets a checkout of its own instead of the old tree.
func CheckoutRealIssue(ctx context.Context, set, cache string, ri RealIssue) (string, error) {
	bundle := filepath.Join(set, ri.Bundle)
	sum, err := fileSHA256(bundle)
	if err != nil {
		return "", fmt.Errorf("instance %s: bundle %s is not in the set's folder or not readable: %w", ri.ID, ri.Bundle, err)
	}
	bare := filepath.Join(cache, "git", strings.TrimSuffix(ri.Bundle, ".bundle")+"-"+sum[:16]+".git")
	if _, err := os.Stat(bare); err != nil {
		tmp := bare + ".tmp"
		os.RemoveAll(tmp)
		if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
			return "", err
		}
		if err := runGit(ctx, nil, "clone", "-q", "--bare", bundle, tmp); err != nil {
			return "", fmt.Errorf("instance %s: clone %s: %w", ri.ID, ri.Bundle, err)
		}
		if err := os.Rename(tmp, bare); err != nil {
			return "", err
		}
	}
	var rev bytes.Buffer
	if err := runGit(ctx, &rev, "--git-dir="+bare, "rev-parse", "--verify", "--end-of-options", ri.Ref+"^{commit}"); err != nil {
		return "", fmt.Errorf("instance %s: branch %s is not in %s: %w", ri.ID, ri.Ref, ri.Bundle, err)
	}
	commit := strings.TrimSpace(rev.String())
	dst := filepath.Join(cache, "checkouts", ri.ID+"-"+commit)
	if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
		return dst, nil
	}
	tmp := dst + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	archive := exec.CommandContext(ctx, "git", "--git-dir="+bare, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", tmp)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	var aerr, terr bytes.Buffer
	archive.Stderr, untar.Stderr, untar.Stdin = &aerr, &terr, pipe
	if err := archive.Start(); err != nil {
		return "", fmt.Errorf("instance %s: git archive: %w (is git installed?)", ri.ID, err)
	}
	uerr := untar.Run()
	werr := archive.Wait()
	if werr != nil || uerr != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("instance %s: git archive %s | tar: %v %v: %s %s", ri.ID, ri.Ref, werr, uerr, strings.TrimSpace(aerr.String()), strings.TrimSpace(terr.String()))
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// fileSHA256 returns the hex SHA-256 of the file at p.
func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func runGit(ctx context.Context, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// RealInstance turns ri into an Instance for the checkout at root: gold
// files are ri.GoldFiles that are source code (not tests) present in the
// checkout, gold functions those the patch touches in them according to
// graph (none when graph has no functions for their language). It errs,
// wrapping errNoGold, when no gold file is left. Skipped lists what was left out, and why.
func RealInstance(ctx context.Context, ri RealIssue, root string, graph graphdb.Reader) (_ Instance, skipped []string, _ error) {
	in := Instance{ID: ri.ID, Problem: ri.Problem, Repo: ri.Repo, GoldFunctions: []string{}}
	in.GoldFiles, skipped = realGoldFiles(ri, root)
	if len(in.GoldFiles) == 0 {
		return Instance{}, skipped, fmt.Errorf("instance %s: %w (%s)", ri.ID, errNoGold, strings.Join(skipped, "; "))
	}
	diffs, err := udiff.Parse(strings.NewReader(ri.Patch))
	if err != nil {
		return Instance{}, skipped, fmt.Errorf("instance %s: patch: %w", ri.ID, err)
	}
	in.GoldLines = GoldLines(diffs, in.GoldFiles)
	if graph != nil {
		g, err := GoldFromDiffGraph(ctx, root, diffs, graph)
		if err != nil {
			return Instance{}, skipped, fmt.Errorf("instance %s: %w", ri.ID, err)
		}
		skipped = append(skipped, g.Skipped...)
		for _, f := range g.Functions {
			file, _, _ := strings.Cut(f, ":")
			if slices.Contains(in.GoldFiles, file) {
				in.GoldFunctions = append(in.GoldFunctions, f)
			}
		}
	}
	return in, skipped, nil
}

// realGoldFiles keeps ri's gold files that are source code (not tests) of
// the checkout at root; skipped says why each other one was left out.
func realGoldFiles(ri RealIssue, root string) (files, skipped []string) {
	for _, p := range ri.GoldFiles {
		lang, ok := retrieve.LanguageOf(p)
		switch {
		case !ok || !slices.Contains(retrieve.SourceLanguages, lang):
			skipped = append(skipped, p+": not source code")
		case IsTestSource(p):
			skipped = append(skipped, p+": test")
		default:
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				skipped = append(skipped, p+": not in the base tree (added by the fix)")
				continue
			}
			files = append(files, p)
		}
	}
	return files, skipped
}

// RealOptions configure RunRealIssues.
type RealOptions struct {
	// Set is the folder holding instances.jsonl and the bundles.
	Set string
	// Cache holds the bare clones and checkouts (kept between runs),
	// created when missing; "" for DefaultRealCache.
	Cache string
	// Repos, when set, keeps the instances whose repository's short or
	// full name is listed ("dayjs", "google/gson").
	Repos []string
	// Prepare indexes a checkout (graph + retrieval index), as for Run.
	Prepare func(ctx context.Context, root string) (graphdb.Reader, func() error, error)
	// Search tunes the relay pipeline.
	Search retrieve.SearchOptions
	// Progress, when set, is called after each instance.
	Progress func(done, total int, r InstanceResult)
}

// RealReport is a real-issue run: every result, the summaries over all
// instances, per repository, and the instances as scored (derived gold).
type RealReport struct {
	Report
	ByRepo    []Summary  `json:"by_repo"`
	Instances []Instance `json:"instances"`
	Skipped   []string   `json:"skipped,omitempty"`
	// Excluded lists the instances not scored, each with why: a fix that
	// changes no source file of the base tree (it only adds files) cannot
	// be localized in it.
	Excluded []string `json:"excluded,omitempty"`
}

// RunRealIssues checks out, indexes and localizes every instance of the
// set (those of opts.Repos), with the relay pipeline and the BM25-over-files
// baseline. An instance that cannot be checked out or indexed counts as a
// miss with its error.
func RunRealIssues(ctx context.Context, opts RealOptions) (RealReport, error) {
	var err error
	if opts.Set, err = filepath.Abs(opts.Set); err != nil {
		return RealReport{}, err
	}
	if opts.Cache == "" {
		if opts.Cache, err = DefaultRealCache(); err != nil {
			return RealReport{}, err
		}
	}
	if opts.Cache, err = filepath.Abs(opts.Cache); err != nil {
		return RealReport{}, err
	}
	if err := os.MkdirAll(opts.Cache, 0o755); err != nil {
		return RealReport{}, fmt.Errorf("create the cache folder: %w", err)
	}
	ris, err := loadRealSet(opts.Set, opts.Repos)
	if err != nil {
		return RealReport{}, err
	}
	var rep RealReport
	byMethod := map[string][]InstanceResult{}
	repoOf := map[string]string{}
	for i, ri := range ris {
		if err := ctx.Err(); err != nil {
			return RealReport{}, err
		}
		in, rs, excluded := realOne(ctx, ri, opts, &rep)
		if excluded != nil {
			rep.Excluded = append(rep.Excluded, excluded.Error())
			if opts.Progress != nil {
				opts.Progress(i+1, len(ris), InstanceResult{ID: ri.ID, Error: "not scored: " + excluded.Error()})
			}
			continue
		}
		rep.Instances = append(rep.Instances, in)
		repoOf[ri.ID] = ri.RepoName()
		for _, r := range rs {
			byMethod[r.Method] = append(byMethod[r.Method], r)
			rep.Results = append(rep.Results, r)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(ris), rs[0])
		}
	}
	for _, m := range sortedMethods(byMethod) {
		rep.Summaries = append(rep.Summaries, Summarize(m, byMethod[m]))
	}
	rep.ByRepo = SummarizeGroups(rep.Results, func(id string) string { return repoOf[id] })
	return rep, nil
}

func loadRealSet(set string, repos []string) ([]RealIssue, error) {
	f, err := os.Open(filepath.Join(set, "instances.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("open the real-issue set: %w (want a folder holding instances.jsonl and the bundles)", err)
	}
	defer f.Close()
	all, err := LoadRealIssues(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if len(repos) == 0 {
		return all, nil
	}
	var out []RealIssue
	for _, ri := range all {
		if slices.Contains(repos, ri.RepoName()) || slices.Contains(repos, ri.Repo) {
			out = append(out, ri)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no instance of repository %s in the set", strings.Join(repos, ", "))
	}
	return out, nil
}

// errNoGold marks an instance whose fix changes no source file of its base
// tree: it is excluded, not scored.
var errNoGold = errors.New("no gold file is source code of the base tree")

// realOne checks out, indexes, derives and scores one instance; excluded is
// set (and nothing scored) when the instance has no gold file to find.
func realOne(ctx context.Context, ri RealIssue, opts RealOptions, rep *RealReport) (_ Instance, _ []InstanceResult, excluded error) {
	in := Instance{ID: ri.ID, Problem: ri.Problem, Repo: ri.Repo, GoldFiles: ri.GoldFiles}
	failAll := func(err error) []InstanceResult {
		var out []InstanceResult
		for _, m := range []string{MethodRelay, MethodBM25Files} {
			r := Score(in, Prediction{})
			r.Method, r.Error = m, err.Error()
			out = append(out, r)
		}
		return out
	}
	root, err := CheckoutRealIssue(ctx, opts.Set, opts.Cache, ri)
	if err != nil {
		return in, failAll(err), nil
	}
	if _, skipped := realGoldFiles(ri, root); len(skipped) == len(ri.GoldFiles) {
		// Checked before indexing: nothing to find in this tree.
		return in, nil, fmt.Errorf("instance %s: %w (%s)", ri.ID, errNoGold, strings.Join(skipped, "; "))
	}
	t0 := time.Now()
	g, release, err := opts.Prepare(ctx, root)
	if err != nil {
		return in, failAll(fmt.Errorf("index %s: %w", ri.ID, err)), nil
	}
	defer release()
	indexSecs := time.Since(t0).Seconds()
	derived, skipped, err := RealInstance(ctx, ri, root, g)
	for _, s := range skipped {
		rep.Skipped = append(rep.Skipped, ri.ID+": "+s)
	}
	switch {
	case errors.Is(err, errNoGold):
		return in, nil, err
	case err != nil:
		return in, failAll(err), nil
	}
	in = derived
	rs := evalOne(ctx, in, root, Options{
		Baseline: true,
		Search:   opts.Search,
		Prepare: func(context.Context, string) (graphdb.Reader, func() error, error) {
			return g, func() error { return nil }, nil
		},
	})
	for i := range rs {
		rs[i].Index = indexSecs
	}
	return in, rs, nil
}

func sortedMethods[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Table renders the overall summaries and then those per repository as
// one text table (rows "repo/method").
func (r RealReport) Table() string {
	return Report{Summaries: slices.Concat(r.Summaries, r.ByRepo)}.Table()
}

// Figures renders the report as a stats file CompareFigures reads: a title
// comment, the table without its legend and, with perInstance, one line per
// instance of the relay method (rank of the first gold file and function,
// hits, the top three files).
func (r RealReport) Figures(title string, perInstance bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	if len(r.Excluded) > 0 {
		fmt.Fprintf(&b, "# %d instance(s) not scored: the fix changes no source file of the base tree\n", len(r.Excluded))
	}
	b.WriteString("\n")
	for _, l := range (Report{Summaries: slices.Concat(r.Summaries, r.ByRepo)}).TableRows() {
		b.WriteString(l + "\n")
	}
	if perInstance {
		b.WriteString("\n# relay, per instance\n")
		for _, res := range r.Results {
			if res.Method != MethodRelay {
				continue
			}
			top := res.Pred.Files[:min(3, len(res.Pred.Files))]
			fmt.Fprintf(&b, "%-20s file_rr=%.2f file_all@5=%v func_any@10=%v func_rr=%.2f top_files=%s\n",
				res.ID, res.FileRR, res.FileAll[5], res.FuncAny[10], res.FuncRR, strings.Join(top, ","))
		}
	}
	return b.String()
}
