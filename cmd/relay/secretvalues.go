package main

import (
	"fmt"
	"log/slog"

	"github.com/relayhq/relay/internal/egress"
)

// addSecretValues gives the process-wide egress filter the values of the
// secret-bearing files of the repository at root (.env, credentials files,
// keys: the --secret-files policy), once per root, so a value copied from
// them into a file relay may read (a table in docs/, a test fixture) is
// redacted from everything relay prints, logs, serves over MCP and sends
// to the model, whatever its format. Every command that reads a
// repository resolves it through repoRoot, which calls this.
//
// A checkout whose secret-bearing files cannot be walked is an error: relay
// does not go on without knowing what it must not show.
func (g *globals) addSecretValues(root string) error {
	if g.valuesOf == root {
		return nil
	}
	vals, err := egress.SecretValues(root, g.secrets)
	if err != nil {
		return fmt.Errorf("%w; relay reads them to keep their values out of what it shows, so make the checkout readable", err)
	}
	egress.Default().AddValues(vals)
	g.valuesOf = root
	if g.log != nil {
		g.log.Debug("secret-file values added to the egress filter", slog.String("repo", root), slog.Int("values", len(vals)))
	}
	return nil
}
