package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/relayhq/relay/graphdb"
)

// langRun is one registered language's part of a run (fileLangs).
type langRun struct {
	idx  int // in fileLangs and tree.langs
	l    fileLang
	fe   frontend // nil: unavailable in this build
	full bool     // the stored format differs (or Options.Full)
	j    *job     // set by Run when the language runs
}

// langMetaKey is the Meta key holding a language's format version.
func langMetaKey(l fileLang) string { return "index." + l.name + ".version" }

// planLangs prepares the registered languages: each present language
// whose stored format version differs runs in full; a language this build
// cannot index is noted once with its file count, and its stored records
// are left as they are.
func planLangs(ctx context.Context, st graphdb.Reader, t *tree, full bool, log *slog.Logger, note func(Diagnostic)) ([]langRun, error) {
	var out []langRun
	for i, l := range fileLangs {
		lr := langRun{idx: i, l: l}
		if l.newFrontend == nil {
			if n := len(t.langs[i]); n > 0 {
				note(Diagnostic{Msg: fmt.Sprintf("%d %s files not indexed: %s", n, l.title, l.unavailable)})
			}
			out = append(out, lr)
			continue
		}
		v, err := st.Meta(ctx, langMetaKey(l))
		if err != nil {
			return nil, fmt.Errorf("read index version: %w", err)
		}
		lr.fe, lr.full = l.newFrontend(log), full || v != l.version
		out = append(out, lr)
	}
	return out, nil
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
