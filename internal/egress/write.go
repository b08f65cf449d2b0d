package egress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// maxHeld caps the text a [Writer] holds back while it waits for the end of
// a line or of a private-key block.
const maxHeld = 1 << 20

// Writer redacts what is written through it before passing it on: the
// standard output of relay's commands, for one.
//
// DESIGN: a secret may be split across two writes, so Writer passes on only
// complete lines and holds the rest until the next newline (or Flush). A
// private key spans lines: while the held text has a "-----BEGIN" with no
// "-----END" after it, Writer holds whole lines too, up to maxHeld, so the
// block is scanned as one. Output therefore appears a line at a time, which
// is what a terminal shows anyway.
type Writer struct {
	w io.Writer
	f *Filter

	mu   sync.Mutex
	held []byte
	err  error
}

// NewWriter returns a Writer that redacts with f before writing to w; f
// nil means [Default], built at the first write (a process that prints
// nothing does not compile the rules).
func NewWriter(w io.Writer, f *Filter) *Writer { return &Writer{w: w, f: f} }

// Write implements io.Writer. It reports len(p) written unless an earlier
// or this write to the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.held = append(w.held, p...)
	cut := bytes.LastIndexByte(w.held, '\n') + 1
	if cut == 0 && len(w.held) < maxHeld {
		return len(p), nil
	}
	if cut == 0 {
		cut = len(w.held)
	}
	if openKey(w.held[:cut]) && len(w.held) < maxHeld {
		return len(p), nil
	}
	if err := w.emit(cut); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Err is the first error writing to the underlying writer (every write
// after it fails with it too), or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Flush writes what is held, redacted.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.emit(len(w.held))
}

func (w *Writer) emit(n int) error {
	if n == 0 {
		return nil
	}
	out := orDefault(w.f).String(string(w.held[:n]))
	w.held = append(w.held[:0], w.held[n:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		w.err = err
		return err
	}
	return nil
}

// openKey reports whether b has a private key's "-----BEGIN … PRIVATE
// KEY-----" line after its last "-----END".
func openKey(b []byte) bool {
	begin := bytes.LastIndex(b, []byte("-----BEGIN"))
	if begin < 0 || bytes.Contains(b[begin:], []byte("-----END")) {
		return false
	}
	line := b[begin:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	return bytes.Contains(line, []byte("PRIVATE KEY"))
}

// Handler wraps h so that every log record's message and attribute values
// (strings, errors, anything printed with %v) are redacted by f; f nil
// means [Default], built at the first record.
func Handler(h slog.Handler, f *Filter) slog.Handler { return handler{next: h, f: f} }

type handler struct {
	next slog.Handler
	f    *Filter
}

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	if h.f == nil {
		h.f = Default()
	}
	out := slog.NewRecord(r.Time, r.Level, h.f.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	if h.f == nil {
		h.f = Default()
	}
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return handler{next: h.next.WithAttrs(red), f: h.f}
}

func (h handler) WithGroup(name string) slog.Handler {
	return handler{next: h.next.WithGroup(name), f: h.f}
}

func (h handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.f.String(v.String()))
	case slog.KindGroup:
		as := v.Group()
		red := make([]any, len(as))
		for i, g := range as {
			red[i] = h.attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			msg := err.Error()
			if red := h.f.String(msg); red != msg {
				return slog.Any(a.Key, redactedError{msg: red, err: err})
			}
			return a
		}
		if s := fmt.Sprint(v.Any()); h.f.String(s) != s {
			return slog.String(a.Key, h.f.String(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// redactedError keeps the error chain while showing the redacted text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func orDefault(f *Filter) *Filter {
	if f == nil {
		return Default()
	}
	return f
}
