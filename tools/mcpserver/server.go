// Package mcpserver exposes relay's tools (grep, glob, read, graph) to other
// agents over the Model Context Protocol, using the official Go SDK.
//
// It is a package of its own so that the tools package, which relay's own
// agents import, does not depend on the MCP SDK. Every tool keeps its
// schema and description; a tool's model-visible failure (Result.IsError)
// becomes an isError result, and so does an infrastructure failure, so a
// client always gets an answer it can show its model. Unknown tools are
// answered by the SDK with a protocol error naming the tool.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/relayhq/relay/tools"
)

// Options configures the server.
type Options struct {
	Name    string // implementation name reported to clients; default "relay"
	Version string // default "dev"
	Logger  *slog.Logger
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
		}, handler(t, opts.Logger))
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

// handler adapts a relay tool to the SDK's low-level tool handler.
func handler(t tools.Tool, log *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				log.Error("tool panicked", "tool", t.Name(), "panic", fmt.Sprint(p))
				res, err = textResult(fmt.Sprintf("relay: the %s tool failed unexpectedly: %v", t.Name(), p), true), nil
			}
		}()
		r, cerr := t.Call(ctx, req.Params.Arguments)
		if cerr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			log.Error("tool failed", "tool", t.Name(), "err", cerr)
			return textResult(fmt.Sprintf("relay: the %s tool failed: %v", t.Name(), cerr), true), nil
		}
		return textResult(r.Content, r.IsError), nil
	}
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// Serve runs srv over newline-delimited JSON-RPC on in/out (stdin/stdout
// for `relay mcp`) until the client disconnects or ctx ends. A client
// closing its end is a normal finish.
func Serve(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	// Closing stdin on shutdown unblocks the reader goroutine; stdout stays open.
	t := &mcp.IOTransport{Reader: rc, Writer: nopWriteCloser{out}}
	err := srv.Run(ctx, t)
	if err != nil && (ctx.Err() != nil || isClosed(err)) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func isClosed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "closed")
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
