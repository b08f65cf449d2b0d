package workspace

import (
	"context"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/advice"
)

// Session is an Agent with the configuration it runs and how the user
// sets that configuration, so that the errors of its runs carry advice in
// the user's terms (the CLI's flags, relay.yaml's keys).
type Session struct {
	*Agent
	Config   agent.Config // with its defaults
	Settings *advice.ConfigNames
}

// Session builds the Agent of cfg (checked, with its defaults; see
// Workspace.Agent); its error says what to change in names' terms
// (ConfigNames.Advise).
func (w *Workspace) Session(ctx context.Context, cfg agent.Config, names *advice.ConfigNames, o AgentOptions) (*Session, error) {
	a, err := w.Agent(ctx, cfg, o)
	if err != nil {
		return nil, names.Advise(err, cfg)
	}
	return &Session{Agent: a, Config: cfg, Settings: names}, nil
}

// Explain adds what to check to an error of a run that means the model
// endpoint could not be reached at all, did not answer in time, or
// answered with something other than the API (ConfigNames.Explain).
func (s *Session) Explain(err error) error { return s.Settings.Explain(err, s.Config) }
