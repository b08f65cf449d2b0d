// Package mcpserver exposes relay's tools (grep, glob, read, graph) to other
// agents over the Model Context Protocol, using the official Go SDK, and
// owns the stdio framing in front of it (Transport).
//
// It is a package of its own so that the tools package, which relay's own
// agents import, does not depend on the MCP SDK. Every tool keeps its
// schema and description; a tool's model-visible failure (Result.IsError)
// becomes an isError result, and so does an infrastructure failure, so a
// client always gets an answer it can show its model. Error texts pass
// through Redact, so no absolute path outside the repository reaches the
// client unless the client sent it itself.
// Unknown tools are answered by the SDK with a protocol error naming the
// tool. At most Options.MaxConcurrent tool calls run at once per server;
// the others wait their turn.
//
// Transport reads one JSON-RPC message per line, answers malformed lines
// itself and keeps serving, and on end of input finishes the calls in
// flight before the server returns (see its DESIGN note). It bounds each
// connection: at most Transport.MaxPendingCalls calls running, waiting or
// with an unwritten answer (DefaultMaxPendingCalls), and at most
// Transport.MaxPendingBytes of answers held before they are written
// (DefaultMaxPendingBytes), a batch's calls and answers included. The
// excess is refused, or the answer withheld, with JSON-RPC error
// CodeServerBusy (-32001), whose message tells the client to read the
// answers it is owed and send the call again (see limits.go).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/tools"
)

// DefaultMaxConcurrent is the number of tool calls one server runs at once
// when Options.MaxConcurrent is zero.
const DefaultMaxConcurrent = 8

// Options configures the server.
type Options struct {
	Name    string // implementation name reported to clients; default "relay"
	Version string // default "dev"
	Logger  *slog.Logger
	// Root is the repository root. Paths in a tool's Go error are shown
	// relative to it; other absolute paths are hidden (see Redact).
	Root string
	// MaxConcurrent bounds the tool calls running at once; 0 means
	// DefaultMaxConcurrent. A client may pipeline any number of calls:
	// the rest wait (cancellable) for a slot.
	MaxConcurrent int
}

// New returns an MCP server offering every tool of reg.
func New(reg *tools.Registry, opts Options) *mcp.Server {
	if opts.Name == "" {
		opts.Name = "relay"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	var roots []string
	if opts.Root != "" {
		roots = append(roots, opts.Root)
		if real, err := filepath.EvalSymlinks(opts.Root); err == nil && real != opts.Root {
			roots = append(roots, real)
		}
	}
	h := &handlers{log: opts.Logger, roots: roots, slots: make(chan struct{}, opts.MaxConcurrent)}
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions(reg),
		Logger:       slog.New(debugHandler{opts.Logger.Handler()}),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, t := range reg.Tools() {
		srv.AddTool(&mcp.Tool{
			Name:        t.Name(),
			Description: t.Description(),
			InputSchema: t.Schema(),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: tools.IsReadOnly(t), IdempotentHint: true, OpenWorldHint: new(false), Title: title(t.Name())},
		}, h.handler(t))
	}
	return srv
}

func title(name string) string {
	switch name {
	case tools.GrepName:
		return "Search file contents"
	case tools.GlobName:
		return "Find files by pattern"
	case tools.ReadName:
		return "Read a file"
	case tools.GraphName:
		return "Code graph traversal"
	}
	return name
}

func instructions(reg *tools.Registry) string {
	return "relay explores one repository with read-only tools: " + strings.Join(reg.Names(), ", ") +
		". Start with grep (contents) or glob (file names), follow symbols with graph (callers, callees, implementations, methods, usages, inheritors, blast_radius), and read the lines that matter. Paths are relative to the repository root."
}

// handlers holds what every tool handler of one server shares.
type handlers struct {
	log   *slog.Logger
	roots []string      // repository root, as given and resolved
	slots chan struct{} // one token per running tool call
}

// handler adapts a relay tool to the SDK's low-level tool handler. The SDK
// runs calls concurrently; slots bounds how many run at once, so 200
// pipelined greps start at most cap(slots) rg processes.
func (h *handlers) handler(t tools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		select {
		case h.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-h.slots }()
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("tool panicked", "tool", t.Name(), "panic", fmt.Sprint(p))
				res, err = textResult(fmt.Sprintf("relay: the %s tool failed unexpectedly: %s", t.Name(), Redact(fmt.Sprint(p), h.roots...)), true), nil
			}
		}()
		r, cerr := t.Call(ctx, req.Params.Arguments)
		if cerr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			h.log.Error("tool failed", "tool", t.Name(), "err", cerr)
			// The client's user can act on relay's advice for MCP
			// (internal/advice): what to run in the repository.
			msg := fmt.Sprintf("relay: the %s tool failed: %s", t.Name(), Redact(cerr.Error(), h.roots...))
			if a := advice.For(cerr, advice.MCP); a != "" {
				msg += "; " + Redact(a, h.roots...)
			}
			return textResult(msg, true), nil
		}
		if r.IsError {
			// A tool's error text may quote a path it resolved (a symlink's
			// target); the client's own arguments may be echoed back.
			return textResult(redact(r.Content, string(req.Params.Arguments), h.roots), true), nil
		}
		return textResult(r.Content, false), nil
	}
}

// textResult is a tool's answer to the client, its secrets redacted
// (internal/egress): an MCP client forwards what it gets to its own model.
func textResult(text string, isError bool) *mcp.CallToolResult {
	text = egress.Default().String(text)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// Serve runs srv over t (stdin/stdout for `relay mcp`) until the client
// closes its end, which is a normal finish once the calls in flight are
// answered, or ctx ends.
func Serve(ctx context.Context, srv *mcp.Server, t *Transport) error {
	err := srv.Run(ctx, t)
	if err != nil && (ctx.Err() != nil || clientGone(err)) {
		return nil
	}
	return err
}

// clientGone reports an error that only says the client hung up.
func clientGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, mcp.ErrConnectionClosed)
}

// debugHandler demotes the SDK's own log records to debug: they are
// diagnostics of the transport (a client hanging up, a cancelled run logs
// at error level there), not failures of relay.
type debugHandler struct{ h slog.Handler }

func (d debugHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return debugHandler{d.h.WithAttrs(as)}
}

func (d debugHandler) WithGroup(name string) slog.Handler { return debugHandler{d.h.WithGroup(name)} }
