package main

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/relayhq/relay/retrieve"
)

func init() { commands = append(commands, newSearchCmd) }

// embedFlags select an embeddings model for hybrid search.
type embedFlags struct {
	model          string
	inputTypeField string
}

func (f *embedFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.model, "embed-model", "", "embeddings model for hybrid search (env RELAY_EMBED_MODEL); endpoint from RELAY_EMBED_BASE_URL or OPENAI_BASE_URL, key from RELAY_EMBED_API_KEY or OPENAI_API_KEY")
	fs.StringVar(&f.inputTypeField, "embed-input-type", "", `request field carrying "query"/"passage" for asymmetric embedding models (e.g. input_type; env RELAY_EMBED_INPUT_TYPE); empty for OpenAI`)
}

// embedder returns the configured embedder, or nil when no model is set.
func (g *globals) embedder(f embedFlags) (retrieve.Embedder, error) {
	c := retrieve.EmbedConfig{
		Model:          cmp.Or(f.model, g.getenv("RELAY_EMBED_MODEL")),
		BaseURL:        cmp.Or(g.getenv("RELAY_EMBED_BASE_URL"), g.getenv("OPENAI_BASE_URL")),
		APIKey:         cmp.Or(g.getenv("RELAY_EMBED_API_KEY"), g.getenv("OPENAI_API_KEY")),
		InputTypeField: cmp.Or(f.inputTypeField, g.getenv("RELAY_EMBED_INPUT_TYPE")),
	}
	emb, err := c.Embedder()
	if errors.Is(err, retrieve.ErrNoEmbedEndpoint) {
		return nil, usageErr(fmt.Errorf("--embed-model %s needs an endpoint: set RELAY_EMBED_BASE_URL or OPENAI_BASE_URL (and the key in RELAY_EMBED_API_KEY or OPENAI_API_KEY)", c.Model))
	}
	return emb, err
}

func newSearchCmd(g *globals) *cobra.Command {
	var (
		lang, path, kind string
		limit            int
		asJSON, expand   bool
		ef               embedFlags
	)
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Hybrid search over code, docs and config (no model needed)",
		Long: `Search ranks functions, methods, types, markdown sections and text windows of the
repository against a query: BM25 over code-aware tokens, fused with embeddings when
--embed-model is set and the index has vectors (weighted RRF), then re-ranked by graph
distance to the best hits. A query that is just an identifier, a file name or a hex code
is looked up exactly. Run 'relay index' first. Search only reads: when the search index is
missing or from another relay version and its directory is read-only, it is built in memory
for this run.

Examples:
  relay search "where are uploads size-limited"
  relay search --lang go --kind function,method "retry with backoff"
  relay search --path 'internal/**/*_test.go' flaky timeout
  relay search BlobStore.Put`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			query := strings.TrimSpace(strings.Join(args, " "))
			if query == "" {
				return usageErr(errors.New("search needs a query: relay search <words|identifier|file|code>"))
			}
			switch {
			case limit <= 0:
				return usageErr(fmt.Errorf("--limit %d: want a positive number", limit))
			case limit > retrieve.MaxLimit:
				// It printed 100 results without saying why it stopped there.
				return usageErr(fmt.Errorf("--limit %d: at most %d (a search ranks the best %d candidates of each ranker)", limit, retrieve.MaxLimit, retrieve.MaxLimit))
			}
			opts := retrieve.SearchOptions{Limit: limit, Expand: expand,
				Filter: retrieve.Filter{Languages: splitFlag(lang), Path: path, Kinds: splitFlag(kind)}}
			if err := opts.Filter.Validate(); err != nil {
				return usageErr(err)
			}
			emb, err := g.embedder(ef)
			if err != nil {
				return err
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			res, err := g.ws(root).Search(cmd.Context(), query, opts, emb)
			if err != nil {
				return cliErr(err)
			}
			if asJSON {
				return printJSON(g.stdout, res)
			}
			fmt.Fprint(g.stdout, res.Text())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&lang, "lang", "", "keep only these languages (comma-separated: go,markdown,yaml…)")
	f.StringVar(&path, "path", "", "keep only paths matching this glob (** spans folders; a bare folder keeps what is below it)")
	f.StringVar(&kind, "kind", "", "keep only these kinds (comma-separated: function,method,type,section,text)")
	f.IntVar(&limit, "limit", 10, fmt.Sprintf("number of results (at most %d)", retrieve.MaxLimit))
	f.BoolVar(&asJSON, "json", false, "print results as JSON")
	f.BoolVar(&expand, "expand", false, "attach graph context (parent type, siblings, imports, callers, callees) to the top hits")
	ef.register(f)
	return cmd
}

// splitFlag splits a comma-separated flag value, dropping empty items.
func splitFlag(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
