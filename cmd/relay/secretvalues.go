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
	if err := addSecretValues(g.log, root, g.secrets); err != nil {
		return err
	}
	g.valuesOf = root
	return nil
}

// addSecretValues adds the values of the secret-bearing files (by p) of
// the checkout at root to the process-wide egress filter. The bot calls it
// for each job's checkout before scoping: the filter then holds the values
// of every repository the process served, and over-redacts across them,
// which is the safe direction.
func addSecretValues(log *slog.Logger, root string, p *egress.FilePolicy) error {
	n, err := egress.Default().AddSecretValues(root, p)
	if err != nil {
		return fmt.Errorf("%w; relay reads them to keep their values out of what it shows, so make the checkout readable", err)
	}
	if log != nil {
		log.Debug("secret-file values added to the egress filter", slog.String("repo", root), slog.Int("values", n))
	}
	return nil
}
