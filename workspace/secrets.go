package workspace

import (
	"fmt"
	"log/slog"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/publish"
)

// SecretValues reads the values of the repository's secret-bearing files
// (.env, credentials files, keys: Options.SecretFiles) once, and gives them
// to the egress filter (Options.Filter), so a value copied from them into a
// file relay may read (a table in docs/, a test fixture) is redacted from
// everything relay prints, logs, serves over MCP and sends to the model,
// whatever its format. Later calls return the same values without walking
// the checkout again; Publisher hands them to internal/publish.
//
// A checkout whose secret-bearing files cannot be walked is an error:
// relay does not go on without knowing what it must not show. The filter
// of a process that serves many checkouts (the bot) holds the values of
// all of them and over-redacts across them, which is the safe direction.
func (w *Workspace) SecretValues() ([]string, error) {
	w.valuesOnce.Do(func() {
		vals, err := egress.SecretValues(w.o.Root, w.o.SecretFiles)
		if err != nil {
			w.valuesErr = fmt.Errorf("%w; relay reads them to keep their values out of what it shows, so make the checkout readable", err)
			return
		}
		if vals == nil {
			vals = []string{} // read, and none: publish does not walk again
		}
		w.o.Filter.AddValues(vals)
		w.values = vals
		w.o.Log.Debug("secret-file values added to the egress filter", slog.String("repo", w.o.Root), slog.Int("values", len(vals)))
	})
	return w.values, w.valuesErr
}

// Publisher makes texts written from this checkout safe to post (package
// internal/publish) with the secret-file values SecretValues read. repo is
// the GitHub repository (owner/name) they are posted on, whose
// cross-references stay live; "" neutralises them all.
func (w *Workspace) Publisher(repo string) (*publish.Publisher, error) {
	vals, err := w.SecretValues()
	if err != nil {
		return nil, err
	}
	p, err := publish.NewPublisher(publish.Options{Filter: w.o.Filter, Root: w.o.Root, Values: vals, Files: w.o.SecretFiles, Repo: repo})
	if err != nil {
		return nil, fmt.Errorf("check the report before publishing it: %w", err)
	}
	return p, nil
}

// Publish is md made safe to post on repo (see Publisher); what was cut
// and redacted is logged to log.
func (w *Workspace) Publish(log *slog.Logger, repo, md string) (string, error) {
	p, err := w.Publisher(repo)
	if err != nil {
		return "", err
	}
	res := p.Report(md)
	logPublished(log, res)
	return res.Markdown, nil
}

// logPublished says what publishing cut and redacted.
func logPublished(log *slog.Logger, res publish.Result) {
	if res.N() > 0 || res.CutAt != "" {
		log.Warn("report filtered before publishing", "redacted", res.N(), "cut_before", res.CutAt)
	}
}
