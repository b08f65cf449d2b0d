package serve

import (
	"context"
	"log/slog"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/workspace"
)

// offlineLocalization is the offline report's localization: its ranked
// files, and its ranked symbols that have a location name (functions and
// methods), in order.
func offlineLocalization(r retrieve.Report) Localization {
	var l Localization
	for _, f := range r.Files {
		l.Files = append(l.Files, f.Path)
	}
	for _, s := range r.Symbols {
		if s.Loc != "" {
			l.Functions = append(l.Functions, s.Loc)
		}
	}
	return l
}

// searchLocalization localizes text by search (retrieve's Localize, the
// ranking relay eval measures) in the job's search index: the model's
// report is prose, and the same ranking for every report makes scores
// comparable between issues. Without a search index there is nothing to
// compare: the empty localization, logged.
func searchLocalization(ctx context.Context, ws *workspace.Workspace, graph graphdb.Reader, text string, log *slog.Logger) Localization {
	s, err := ws.OpenSearcher(graph, nil)
	if err != nil {
		log.Warn("no localization kept for related issues", "err", err)
		return Localization{}
	}
	files, funcs, err := s.Localize(ctx, text, retrieve.SearchOptions{})
	if err != nil {
		log.Warn("no localization kept for related issues", "err", err)
		return Localization{}
	}
	return Localization{Files: files, Functions: funcs}
}
