package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/tools"
)

// wire drives Serve over pipes with raw JSON-RPC lines, as a client process
// would over stdio.
type wire struct {
	t     testing.TB
	in    *io.PipeWriter
	lines chan string   // every line the server wrote, in order
	done  chan error    // Serve's result
	wrote chan struct{} // closed when the server's output ends
}

// startWire serves reg over a Transport on pipes.
func startWire(t testing.TB, reg *tools.Registry, opts Options, tr Transport) *wire {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan string, 1024), done: make(chan error, 1), wrote: make(chan struct{})}
	tr.In, tr.Out = inR, outW
	srv := New(reg, opts)
	go func() {
		err := Serve(ctx, srv, &tr)
		outW.Close()
		// A server that stopped reading must fail the test's writes, not block them.
		inR.CloseWithError(fmt.Errorf("the server returned (%v)", err))
		w.done <- err
	}()
	go func() {
		defer close(w.wrote)
		br := bufio.NewReaderSize(outR, 1<<16)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				w.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return w
}

// send writes one line (a newline is added).
func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("write to server: %v", err)
	}
}

// recv returns the next line the server wrote.
func (w *wire) recv() string {
	w.t.Helper()
	select {
	case l := <-w.lines:
		return l
	case <-time.After(time.Minute):
		w.t.Fatal("no answer from the server within a minute")
	}
	return ""
}

// initialize runs the MCP handshake at protocol version v.
func (w *wire) initialize(v string) {
	w.t.Helper()
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`, v))
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	line := w.recv()
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Result.ProtocolVersion != v {
		w.t.Fatalf("initialize answer %s: %v", line, err)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// closeInput closes the server's stdin and returns Serve's result.
func (w *wire) closeInput() error {
	w.t.Helper()
	w.in.Close()
	select {
	case err := <-w.done:
		return err
	case <-time.After(time.Minute):
		w.t.Fatal("the server did not return within a minute after its input closed")
	}
	return nil
}

// rest returns every line still to come once the server's output ended.
func (w *wire) rest() []string {
	w.t.Helper()
	select {
	case <-w.wrote:
	case <-time.After(30 * time.Second):
		w.t.Fatal("the server's output did not end")
	}
	var out []string
	for {
		select {
		case l := <-w.lines:
			out = append(out, l)
		default:
			return out
		}
	}
}

// answer is a decoded JSON-RPC response.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t testing.TB, line string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("server wrote a line that is not one JSON-RPC response: %v\n%.300s", err, line)
	}
	return a
}
