package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// ReadInstances reads the instances file at path (JSON lines, as
// LoadInstances); errors name the file.
func ReadInstances(path string) ([]Instance, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open instances: %w", err)
	}
	defer in.Close()
	insts, err := LoadInstances(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return insts, nil
}

// AllFailed reports a run in which no instance could be localized at all
// (every checkout missing, every index failing): n is the number of
// instances, first the first failure ("ID: error"). Such a run's figures
// are all misses and measure nothing; n is 0 when any result succeeded
// (some failures among successes only count as misses).
func (r Report) AllFailed() (n int, first string) {
	failed := map[string]bool{}
	for _, res := range r.Results {
		if res.Error == "" {
			return 0, ""
		}
		if len(failed) == 0 {
			first = res.ID + ": " + res.Error
		}
		failed[res.ID] = true
	}
	return len(failed), first
}

// DefaultRealCache is where a real-issue run keeps its checkouts and
// their indexes when RealOptions.Cache is not given: relay/realissues in
// the user cache folder.
func DefaultRealCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder (%v)", err)
	}
	return filepath.Join(dir, "relay", "realissues"), nil
}

// WriteFiles writes the figures (figures.txt), the per-instance results
// (results.json) and the instances as scored (instances.jsonl) into dir,
// creating it.
func (r RealReport) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the output folder: %w", err)
	}
	res, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var insts []byte
	for _, in := range r.Instances {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		insts = append(append(insts, b...), '\n')
	}
	for name, data := range map[string][]byte{
		"figures.txt":     []byte(r.Figures("relay eval real", true)),
		"results.json":    res,
		"instances.jsonl": insts,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// ErrNoGoldFiles is a fix that changes no source file of its pre-fix tree:
// it cannot be a localization instance.
var ErrNoGoldFiles = errors.New("the fix changes no source file of the pre-fix tree (only tests, docs, generated or new files): it cannot be a localization instance")

// Instance is the localization instance of the gold answer: id, the
// problem statement and, for a fix between module versions, the module
// version of the pre-fix checkout (repo, "" for none), with the gold
// lines of the fix when its diff had hunks. It has no gold
// files (ErrNoGoldFiles) when the fix changes no source file.
func (g Gold) Instance(id, problem, repo string) (Instance, error) {
	if len(g.Files) == 0 {
		return Instance{}, ErrNoGoldFiles
	}
	in := Instance{ID: id, Problem: problem, GoldFiles: g.Files, GoldFunctions: g.Functions, GoldLines: g.Lines, Repo: repo}
	if in.GoldFunctions == nil {
		in.GoldFunctions = []string{}
	}
	return in, nil
}

// NeedsGraph reports whether a fix changes a source file of a language
// other than Go: its gold functions come from the code graph
// (GoldFromDiffGraph), not from GoldFromDiff.
func NeedsGraph(diffs []udiff.FileDiff) bool {
	for _, d := range diffs {
		if lang, ok := retrieve.LanguageOf(d.OldPath); ok && lang != "go" && slices.Contains(retrieve.SourceLanguages, lang) {
			return true
		}
	}
	return false
}
