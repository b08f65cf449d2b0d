// Package redact owns the masking of secrets in URLs. Every URL relay shows
// (in a log line, a hint, an error, a transcript, an MCP answer or a report)
// goes through [URL], or through [Text] or [Error] when it is embedded in a
// message, such as the *url.Error net/http and go-openai return. It imports
// nothing of relay's, so every package can use it.
//
// What counts as secret: the password of the user-info (user:***@), a lone
// user-info (https://TOKEN@host is how tokens are often passed: ***@), and
// the values of query parameters whose names suggest a credential (key,
// token, secret, password, signature, auth, credential).
package redact

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces every secret.
const Mask = "***"

// URL returns raw with its secrets masked. raw need not parse: a string
// that is not a URL is returned unchanged, and one that looks like a URL but
// does not parse has everything between "://" and its last "@" masked.
func URL(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return roughURL(raw, i)
	}
	changed := false
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), Mask)
		} else {
			u.User = url.User(Mask)
		}
		changed = true
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = Mask
			changed = true
		} else {
			for k, vs := range q {
				if secretName(k) {
					for j := range vs {
						vs[j] = Mask
					}
					changed = true
				}
			}
			if changed {
				u.RawQuery = q.Encode()
			}
		}
	}
	if !changed {
		return raw
	}
	// url.URL.String escapes the mask's '*'; keep it readable.
	return strings.ReplaceAll(u.String(), "%2A%2A%2A", Mask)
}

// roughURL masks the user-info of a URL-like string that does not parse.
func roughURL(raw string, scheme int) string {
	rest := raw[scheme+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			return raw[:scheme+3] + rest[:q+1] + Mask
		}
		return raw
	}
	user := Mask
	if c := strings.IndexByte(rest[:at], ':'); c >= 0 && !strings.ContainsAny(rest[:c], "/?#") {
		user = rest[:c] + ":" + Mask
	}
	return raw[:scheme+3] + user + rest[at:]
}

func secretName(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"key", "token", "secret", "pass", "sig", "auth", "cred", "session"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// urlRE finds URLs inside free text: a scheme, "://", then everything up to
// white space or a quote (url.Error quotes its URL).
var urlRE = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")

// Text masks the secrets of every URL in s. Punctuation that ends a URL in
// prose ("…?sslmode=disable: failed", "see https://h/x.") is left out of the
// URL, so it is kept as written rather than query-escaped (%3A) or dropped.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRE.ReplaceAllStringFunc(s, func(m string) string {
		core := strings.TrimRight(m, ".,:;!?)]}")
		return URL(core) + m[len(core):]
	})
}

// Error returns err with its message passed through [Text]. The original
// chain stays reachable for errors.Is and errors.As, so retry and timeout
// decisions still see what happened; only the text changes. nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := Text(msg)
	if red == msg {
		return err
	}
	return &redacted{msg: red, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Handler wraps h so that every log record's message and attribute values
// (strings, errors, anything printed with %v) have their URLs redacted.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = attr(a)
	}
	return handler{h.next.WithAttrs(red)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.next.WithGroup(name)} }

func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		as := v.Group()
		red := make([]any, len(as))
		for i, g := range as {
			red[i] = attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.Any(a.Key, Error(err))
		}
		if s := v.String(); strings.Contains(s, "://") {
			return slog.String(a.Key, Text(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
