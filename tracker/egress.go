package tracker

import (
	"context"

	"github.com/relayhq/relay/internal/egress"
)

// Filtered wraps t so that every text it posts passes the egress filter
// (internal/egress) first: a secret the report would quote is replaced by
// "[redacted: <rule>]" whichever tracker carries it. The bot (package
// serve) and `relay scope --post` wrap every tracker they are given, so
// nothing posts unfiltered. f nil means egress.Default(). Wrapping twice
// is harmless (a redacted text has nothing left to redact).
//
// The wrapper keeps the optional GitCredentials capability: it answers ""
// when t has none, which GitCredentials documents as "no token to offer".
func Filtered(t Tracker, f *egress.Filter) Tracker {
	if t == nil {
		return nil
	}
	if _, ok := t.(*filtered); ok {
		return t
	}
	return &filtered{Tracker: t, f: f}
}

// FilteredAll returns m with every tracker wrapped by [Filtered].
func FilteredAll(m map[string]Tracker, f *egress.Filter) map[string]Tracker {
	out := make(map[string]Tracker, len(m))
	for k, t := range m {
		out[k] = Filtered(t, f)
	}
	return out
}

type filtered struct {
	Tracker
	f *egress.Filter
}

func (t *filtered) filter() *egress.Filter {
	if t.f == nil {
		return egress.Default()
	}
	return t.f
}

// UpsertReport posts body with its secrets redacted.
func (t *filtered) UpsertReport(ctx context.Context, ref Ref, body string) (string, error) {
	return t.Tracker.UpsertReport(ctx, ref, t.filter().String(body))
}

// GitToken implements GitCredentials when the wrapped tracker does.
func (t *filtered) GitToken(ctx context.Context, ref Ref) (string, error) {
	if gc, ok := t.Tracker.(GitCredentials); ok {
		return gc.GitToken(ctx, ref)
	}
	return "", nil
}

// Unwrap returns the wrapped tracker.
func (t *filtered) Unwrap() Tracker { return t.Tracker }
