package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// langRun is one registered language's part of a run (fileLangs).
type langRun struct {
	idx  int // in fileLangs and tree.langs
	l    frontend.Lang
	fe   frontend.Frontend // nil: unavailable in this build
	full bool              // the stored format or configuration differs (or Options.Full)
	j    *frontend.Job     // set by plan when the language is available
	meta map[string]string // the frontend's Meta entries (preparer), written by commit
	// failed: the frontend panicked (runner.index); its version is not
	// recorded.
	failed bool
}

// plan compares the tree with the store's records and versions: it makes
// each language's job (changed and deleted files), the languages to run
// and the owners to delete, fills Summary.Files and Languages, and reports
// whether there is anything to do. Every language is planned alike: one
// whose stored format version differs (or, held to the per-file budgets,
// whose budgets changed) runs in full; a language this build cannot index
// is noted once with its file count, and its stored records are left as
// they are; every record of a language no longer in the tree goes.
func (r *runner) plan(ctx context.Context) (work bool, err error) {
	records, err := r.st.Files(ctx)
	if err != nil {
		return false, fmt.Errorf("read stored files: %w", err)
	}
	budgetMeta, err := r.st.Meta(ctx, MetaBudgets)
	if err != nil {
		return false, fmt.Errorf("read index budgets: %w", err)
	}
	// Budgets that changed re-index the tree-sitter languages in full: a
	// file they kept from being parsed is retried.
	budgetsChanged := budgetMeta != budgetsOf(r.opts).Fingerprint()
	listTimeout := r.opts.ListTimeout
	if listTimeout <= 0 {
		listTimeout = DefaultListTimeout
	}
	env := frontend.Env{Log: r.log, ListTimeout: listTimeout, GoProxy: r.opts.GoProxy, CacheDir: r.opts.CacheDir}
	r.sum.Languages = map[string]LanguageSummary{}
	r.langs = make([]langRun, len(fileLangs))
	var gone []string
	for i, l := range fileLangs {
		lr := &r.langs[i]
		*lr = langRun{idx: i, l: l}
		if l.New == nil {
			if n := len(r.tree.langs[i]); n > 0 {
				r.note(Diagnostic{Msg: fmt.Sprintf("%d %s files not indexed: %s", n, l.Title, l.Unavailable)})
			}
			continue
		}
		if err := r.planLang(ctx, lr, records, env, budgetsChanged); err != nil {
			return false, err
		}
		files := lr.j.Files
		if len(files) == 0 && !(l.ConfigPresent && len(lr.j.Configs) > 0) {
			// Gone from the tree: drop every owner, pseudo-owners included.
			for p := range lr.j.Stored {
				gone = append(gone, p)
			}
			continue
		}
		r.steps = append(r.steps, lr)
		for p := range lr.j.Deleted {
			gone = append(gone, p)
		}
		ls := r.sum.Languages[l.Title]
		ls.Files, ls.Unit = len(files), l.Unit
		r.sum.Languages[l.Title] = ls
		r.sum.Files += len(files)
		work = work || lr.full || len(lr.j.Changed) > 0 || l.ConfigOwner != "" && lr.j.Stored[l.ConfigOwner].Hash != lr.j.ConfigHash
		r.log.Debug("index plan", "language", l.Name, "full", lr.full, "changed", len(lr.j.Changed), "deleted", len(lr.j.Deleted))
	}
	sort.Strings(gone)
	r.gone = gone
	return work || len(gone) > 0, nil
}

// planLang makes the job of one available language and decides whether it
// runs in full.
func (r *runner) planLang(ctx context.Context, lr *langRun, records []graphdb.FileRecord, env frontend.Env, budgetsChanged bool) error {
	l := lr.l
	v, err := r.st.Meta(ctx, l.VersionKey)
	if err != nil {
		return fmt.Errorf("read index version: %w", err)
	}
	lr.fe = l.New(env)
	lr.full = r.opts.Full || v != l.Version || l.Budgeted && budgetsChanged
	if !r.opts.Full && v != l.Version && v != "" {
		r.log.Info("full re-index", "language", l.Name, "stored_version", v, "version", l.Version)
	}
	j := r.newJob(records, lr.fe, r.tree.langs[lr.idx])
	j.Configs, j.Irregular = r.tree.langConfigs[lr.idx], r.tree.irregular[lr.idx]
	if l.ConfigOwner != "" {
		j.ConfigHash = configHash(r.tree, lr.idx)
	}
	if p, ok := lr.fe.(frontend.Preparer); ok {
		prep, err := p.Prepare(ctx, j)
		if err != nil {
			return err
		}
		lr.full, lr.meta = lr.full || prep.Full, prep.Meta
		if prep.SyntaxOnly > 0 {
			r.sum.Languages[l.Title] = LanguageSummary{SyntaxOnly: prep.SyntaxOnly}
		}
	}
	if j.Full = lr.full; j.Full {
		for rel := range j.Files {
			j.Changed[rel] = true
		}
	}
	lr.j = j
	return nil
}

// newJob makes the job of frontend fe over files (this language's files on
// disk): files that cannot be read are noted and dropped, a file whose
// hash differs from its record is changed, a record whose file is gone is
// deleted.
func (r *runner) newJob(records []graphdb.FileRecord, fe frontend.Frontend, files map[string]*frontend.DiskFile) *frontend.Job {
	j := &frontend.Job{
		Lang: fe.Language(), Root: r.tree.root, Read: r.tree.rf.read, BadDirs: r.tree.badDirs, Files: files, Stored: map[string]graphdb.FileRecord{}, Changed: map[string]bool{}, Deleted: map[string]bool{},
		Workers: r.workers, Budget: budgetsOf(r.opts), Reader: r.st, Progress: r.prog.send, Diag: r.diag, Note: r.note,
	}
	for _, rec := range records {
		if rec.Language == fe.Language() {
			j.Stored[rec.Path] = rec
		}
	}
	for rel, df := range files {
		if df.Err != nil {
			r.note(Diagnostic{Pos: frontend.ShortRel(rel), Msg: frontend.Reason(df.Err)})
			delete(files, rel)
			continue
		}
		if rec, ok := j.Stored[rel]; !ok || rec.Hash != df.Hash {
			j.Changed[rel] = true
		}
	}
	for p, rec := range j.Stored {
		if !rec.IsPseudo() && files[p] == nil {
			j.Deleted[p] = true
		}
	}
	return j
}

// configHash fingerprints the contents of a language's configuration
// files; one that cannot be read counts as absent.
func configHash(t *tree, i int) string {
	h := sha256.New()
	for _, rel := range t.langConfigs[i] {
		data, err := t.rf.read(rel)
		if err != nil {
			continue
		}
		fmt.Fprintf(h, "%s\x00%x\x00", rel, sha256.Sum256(data))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// inLangs reports whether rel is a source file of a registered language.
func inLangs(t *tree, rel string) bool {
	for _, fs := range t.langs {
		if fs[rel] != nil {
			return true
		}
	}
	return false
}
