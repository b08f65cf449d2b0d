package advice

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/redact"
)

// ConfigNames say how a user sets the agent's settings — the CLI's flags and
// environment, or relay.yaml's keys — so that the advice added to the
// agent's errors, where the user reads them (the terminal, a bot comment),
// names what the user can change.
type ConfigNames struct {
	Fields         map[string]string // agent.Config field → flag or key
	NoModel        string            // what to do on agent.ErrNoModel
	NoPrices       string            // what to do on agent.ErrNoPrices
	RequestTimeout string
	Retries        string
	BaseURL        string // where the endpoint is set
	Offline        string // how to run without a model
}

// Advise rewrites agent.Config.Validate's problems in the user's terms,
// one a line; errors.Is and errors.As still see the originals.
func (n *ConfigNames) Advise(err error, c agent.Config) error {
	if err == nil {
		return nil
	}
	problems := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	}
	lines := make([]string, 0, len(problems))
	for _, p := range problems {
		var ce *agent.ConfigError
		switch {
		case errors.Is(p, agent.ErrNoModel):
			lines = append(lines, fmt.Sprintf("no model for endpoint %s: %s", redact.URL(c.BaseURL), n.NoModel))
		case errors.As(p, &ce):
			name := n.Fields[ce.Field]
			if name == "" {
				name = ce.Field
			}
			line := fmt.Sprintf("%s %s: %s", name, ce.Value, ce.Reason)
			if errors.Is(ce, agent.ErrNoPrices) {
				line += "; " + n.NoPrices
			}
			lines = append(lines, line)
		default:
			lines = append(lines, p.Error())
		}
	}
	return &advisedError{msg: strings.Join(lines, "\n"), err: err}
}

// Explain adds what to check to an error of a run that means the model
// endpoint could not be reached at all (refused, unknown host, no route),
// did not answer in time, or answered with something other than the API.
func (n *ConfigNames) Explain(err error, c agent.Config) error {
	if err == nil {
		return nil
	}
	where := redact.URL(c.BaseURL)
	if where == "" {
		where = "https://api.openai.com/v1"
	}
	var re *agent.ReplyError
	if errors.As(err, &re) {
		return fmt.Errorf("%w\ncheck %s", err, n.BaseURL)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w\nthe model endpoint %s did not answer within %s %s (%d attempt(s), %s); raise %s for a slow model, or check the endpoint",
			err, redact.URL(c.BaseURL), n.RequestTimeout, c.RequestTimeout, c.Retries, n.Retries, n.RequestTimeout)
	}
	var op *net.OpError
	var dns *net.DNSError
	if !(errors.As(err, &op) || errors.As(err, &dns)) {
		return err
	}
	return fmt.Errorf("%w\ncannot reach the model endpoint %s: check that the server is running and that %s points at it (%s)", err, where, n.BaseURL, n.Offline)
}

// advisedError replaces an error's text with advice and keeps its chain.
type advisedError struct {
	msg string
	err error
}

func (e *advisedError) Error() string { return e.msg }
func (e *advisedError) Unwrap() error { return e.err }
