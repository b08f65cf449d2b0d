package pyrightcheck

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// lsp is a minimal JSON-RPC client of a language server over stdio: one
// request at a time, answering the server's own requests with null (or
// an empty configuration).
type lsp struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	next int
	// cancelDir is where a file cancellation-<id>.tmp cancels request id:
	// Pyright runs a request's work synchronously, so a $/cancelRequest
	// message would wait behind it, while its file-based cancellation
	// (--cancellationReceive=file:NAME) polls the file during the work.
	cancelDir string
}

// errCancelled is a request Pyright gave up on at callWithin's deadline.
var errCancelled = errors.New("cancelled at its time budget")

// LSP's error codes for a request the server cancelled.
const (
	requestCancelled = -32800
	serverCancelled  = -32802
)

type rpcMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startLSP runs the language server in dir: node langserver.index.js --stdio.
func startLSP(ctx context.Context, dir string) (*lsp, error) {
	// Pyright looks for the files under os.tmpdir(), which, like
	// os.TempDir, follows TMPDIR.
	name := fmt.Sprintf("relay-pyrightcheck-%d-%d", os.Getpid(), time.Now().UnixNano())
	cancelDir := filepath.Join(os.TempDir(), "python-languageserver-cancellation", name)
	if err := os.MkdirAll(cancelDir, 0o755); err != nil {
		return nil, fmt.Errorf("pyright cancellation folder: %w", err)
	}
	cmd := exec.CommandContext(ctx, "node", "node_modules/pyright/langserver.index.js", "--stdio", "--cancellationReceive=file:"+name)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	var out io.ReadCloser
	if err == nil {
		out, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		_ = os.RemoveAll(cancelDir)
		return nil, fmt.Errorf("start pyright: %w", err)
	}
	return &lsp{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), cancelDir: cancelDir}, nil
}

func (c *lsp) close() {
	_ = c.notify("exit", nil)
	c.in.Close()
	_ = c.cmd.Wait()
	_ = os.RemoveAll(c.cancelDir)
}

func (c *lsp) write(m rpcMsg) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.in.Write(b)
	return err
}

func (c *lsp) read() (rpcMsg, error) {
	h, err := textproto.NewReader(c.out).ReadMIMEHeader()
	if err != nil {
		return rpcMsg{}, fmt.Errorf("read pyright header: %w", err)
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil {
		return rpcMsg{}, fmt.Errorf("pyright header without length: %v", h)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.out, b); err != nil {
		return rpcMsg{}, fmt.Errorf("read pyright body: %w", err)
	}
	var m rpcMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return rpcMsg{}, fmt.Errorf("decode pyright message: %w", err)
	}
	return m, nil
}

func (c *lsp) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(rpcMsg{Method: method, Params: p})
}

// call sends a request and decodes its result into out, answering the
// server's requests that arrive meanwhile.
func (c *lsp) call(method string, params, out any) error {
	return c.callWithin(method, params, out, 0)
}

// callWithin is call with a time budget, when positive: at the budget it
// cancels the request, and an answer that it was cancelled is
// errCancelled.
func (c *lsp) callWithin(method string, params, out any, budget time.Duration) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := json.RawMessage(strconv.Itoa(c.next))
	if budget > 0 {
		file := filepath.Join(c.cancelDir, "cancellation-"+string(id)+".tmp")
		t := time.AfterFunc(budget, func() { _ = os.WriteFile(file, nil, 0o644) })
		defer func() { t.Stop(); _ = os.Remove(file) }()
	}
	if err := c.write(rpcMsg{ID: id, Method: method, Params: p}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		switch {
		case m.Method != "" && m.ID != nil: // a request from the server
			res := json.RawMessage("null")
			if m.Method == "workspace/configuration" {
				var q struct {
					Items []any `json:"items"`
				}
				_ = json.Unmarshal(m.Params, &q)
				res = json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("{},", len(q.Items)), ",") + "]")
			}
			if err := c.write(rpcMsg{ID: m.ID, Result: res}); err != nil {
				return err
			}
		case m.Method != "": // a notification
		case string(m.ID) == string(id):
			if m.Error != nil && (m.Error.Code == requestCancelled || m.Error.Code == serverCancelled) {
				return fmt.Errorf("%s: %w", method, errCancelled)
			}
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			if out == nil || len(m.Result) == 0 {
				return nil
			}
			return json.Unmarshal(m.Result, out)
		}
	}
}
