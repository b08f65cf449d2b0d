package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrameBytes caps one inbound message (one line) when
// Transport.MaxFrameBytes is zero.
const DefaultMaxFrameBytes = 16 << 20

// Transport serves MCP over newline-delimited JSON-RPC 2.0: one message
// (or, before MCP 2025-06-18, one batch) per line on In, answers on Out.
//
// DESIGN: the SDK's own stdio transport ends the session on the first line
// it cannot decode (bad JSON, a non-object, an id of the wrong type, invalid
// UTF-8, two values on a line, a line over its limit) and, when the input
// ends, cancels the calls still running and drops their answers. This
// transport sits in front of the SDK instead: it reads lines through a
// bounded reader (a longer line is skipped to its newline, never buffered),
// checks each against JSON-RPC 2.0, answers what is malformed itself
// (-32700 parse error or -32600 invalid request, with id null unless the id
// could be read) and hands only well-formed messages to the SDK, which
// therefore never sees a frame it would choke on. When the input ends it
// waits for every call it handed on to be answered and written before it
// reports the end, so a client may write its requests, close stdin and read
// every answer.
type Transport struct {
	In  io.Reader // closed on shutdown when it is an io.Closer
	Out io.Writer // never closed
	// MaxFrameBytes caps one line; 0 means DefaultMaxFrameBytes.
	MaxFrameBytes int
	// MaxPendingCalls caps the calls of this connection that are running,
	// waiting for a slot or waiting for their answer to be written (the
	// calls of an unfinished batch included); a call beyond it is refused
	// with CodeServerBusy. 0 means DefaultMaxPendingCalls.
	MaxPendingCalls int
	// MaxPendingBytes caps the bytes of answers held before they are
	// written: answers of a batch waiting for the rest of it, and answers
	// waiting behind a client that does not read. An answer that would
	// exceed it is replaced by a CodeServerBusy error. 0 means
	// DefaultMaxPendingBytes.
	MaxPendingBytes int
	// Logger receives a warning per rejected line (never its content); nil discards.
	Logger *slog.Logger
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxFrameBytes
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &conn{
		in:       t.In,
		out:      t.Out,
		log:      log,
		limit:    limit,
		maxCalls: orDefault(t.MaxPendingCalls, DefaultMaxPendingCalls),
		maxBytes: orDefault(t.MaxPendingBytes, DefaultMaxPendingBytes),
		frames:   make(chan frame),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]*call{},
	}
	go c.readFrames()
	return c, nil
}

// frame is one line of input, or the end of it.
type frame struct {
	data     []byte // the line without its line ending; nil when too large
	size     int    // bytes read for this line, line ending included
	tooLarge bool
	err      error // io.EOF or a read error: no more frames
}

// call is a request handed to the SDK whose answer has not been written yet.
type call struct {
	method string
	drain  bool   // the end of input waits for its answer
	batch  *batch // the batch it arrived in, if any
	slot   int    // its answer's index in batch.slots
}

// batch collects the answers to one incoming JSON-RPC batch, which go out
// together as one array once the last is in.
type batch struct {
	slots   []json.RawMessage
	missing int
	calls   int // calls registered for it, released when it is written
	held    int // bytes of the answers in slots
}

// conn is the mcp.Connection of a Transport. Read is called by one
// goroutine of the SDK; Write and Close may be called concurrently.
type conn struct {
	in       io.Reader
	out      io.Writer
	log      *slog.Logger
	limit    int
	maxCalls int // MaxPendingCalls
	maxBytes int // MaxPendingBytes

	frames    chan frame
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	queue []jsonrpc.Message // messages of a batch not yet returned by Read

	writeMu sync.Mutex // one line at a time on out

	mu       sync.Mutex // guards the fields below
	pending  map[jsonrpc.ID]*call
	inflight int           // pending calls with drain set
	drained  chan struct{} // closed when inflight reaches 0 after the input ended
	version  string        // MCP protocol version in use; "" until known
	open     int           // calls registered whose answer is not written yet
	waiting  int           // bytes of answers held until written
}

// SessionID implements mcp.Connection; stdio has no session id.
func (c *conn) SessionID() string { return "" }

// readFrames runs in its own goroutine so that Read can return when the
// connection closes even while a read of In blocks.
func (c *conn) readFrames() {
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		f := c.readLine(br)
		err := f.err
		f.err = nil
		if f.size > 0 && !c.send(f) {
			return
		}
		if err != nil {
			c.send(frame{err: err})
			return
		}
	}
}

// send hands f to Read; false means the connection closed.
func (c *conn) send(f frame) bool {
	select {
	case c.frames <- f:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads up to the next newline, keeping at most c.limit bytes: a
// longer line is read to its end and dropped, so one huge line costs a
// bounded buffer and the stream goes on at the next line.
func (c *conn) readLine(br *bufio.Reader) frame {
	var f frame
	for {
		chunk, err := br.ReadSlice('\n')
		f.size += len(chunk)
		content := f.size
		if bytes.HasSuffix(chunk, []byte("\n")) {
			content--
		}
		if content > c.limit {
			f.tooLarge, f.data = true, nil
		} else {
			f.data = append(f.data, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		f.err = err
		if !f.tooLarge {
			f.data = bytes.TrimSuffix(f.data, []byte("\n"))
			f.data = bytes.TrimSuffix(f.data, []byte("\r"))
		}
		return f
	}
}

// Read implements mcp.Connection: it returns the next well-formed message,
// answering malformed lines on the way. At the end of input it waits for
// the calls in flight to be answered, then returns the read error (io.EOF).
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f := <-c.frames:
			if f.err != nil {
				return nil, c.drain(ctx, f.err)
			}
			if err := c.accept(f); err != nil {
				return nil, err
			}
		}
	}
}

// drain waits until every call handed to the SDK has been answered, the
// connection closes or ctx ends, then returns err.
func (c *conn) drain(ctx context.Context, err error) error {
	c.mu.Lock()
	n := c.inflight
	var ch chan struct{}
	if n > 0 {
		ch = make(chan struct{})
		c.drained = ch
	}
	c.mu.Unlock()
	if ch == nil {
		return err
	}
	c.log.Debug("mcp input ended; finishing the calls in flight", "calls", n)
	select {
	case <-ch:
	case <-c.closed:
	case <-ctx.Done():
	}
	return err
}

// accept checks one line. Well-formed messages go to c.queue; anything else
// is answered here. The error is a failure to write an answer.
func (c *conn) accept(f frame) error {
	if f.tooLarge {
		return c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			"Invalid request: a message of %d bytes exceeds the %s limit of one line; send smaller messages", f.size, sizeText(c.limit)))
	}
	data := bytes.TrimSpace(f.data)
	if len(data) == 0 {
		return nil // blank lines separate nothing
	}
	if !utf8.Valid(data) {
		return c.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf(
			"Parse error: the message is not valid UTF-8 (first bad byte at offset %d); JSON-RPC messages are UTF-8 text", invalidUTF8At(data)))
	}
	if !json.Valid(data) {
		var v json.RawMessage // decoded again only to say what is wrong
		err := json.Unmarshal(data, &v)
		return c.reject(nil, jsonrpc.CodeParseError, "Parse error: "+syntaxText(err)+"; each line must hold exactly one JSON-RPC message")
	}
	switch data[0] {
	case '{':
		m, id, e := c.check(data, nil)
		if e != nil {
			return c.reject(id, e.Code, e.Message)
		}
		if m != nil {
			c.queue = append(c.queue, m)
		}
		return nil
	case '[':
		return c.acceptBatch(data)
	}
	return c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid request: a message must be a JSON object with \"jsonrpc\": \"2.0\"")
}

// acceptBatch handles a JSON-RPC batch, which MCP allowed before protocol
// version 2025-06-18 and removed from then on.
func (c *conn) acceptBatch(data []byte) error {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return c.reject(nil, jsonrpc.CodeParseError, "Parse error: "+syntaxText(err))
	}
	if len(elems) == 0 {
		return c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid request: empty batch; a batch holds at least one message")
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	if version >= batchlessVersion {
		return c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			"Invalid request: JSON-RPC batches are not part of MCP protocol version %s (they were removed in %s); send one message per line", version, batchlessVersion))
	}
	b := &batch{}
	var msgs []jsonrpc.Message
	for _, e := range elems {
		e = bytes.TrimSpace(e)
		if len(e) == 0 || e[0] != '{' {
			b.slots = append(b.slots, errorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid request: a batch element must be a JSON object"))
			continue
		}
		m, id, rerr := c.check(e, b)
		switch {
		case rerr != nil:
			b.slots = append(b.slots, errorResponse(id, rerr.Code, rerr.Message))
		case m != nil:
			msgs = append(msgs, m)
		}
	}
	c.mu.Lock()
	done := b.missing == 0 && len(b.slots) > 0
	c.mu.Unlock()
	c.queue = append(c.queue, msgs...)
	if done { // nothing left to wait for: every element was malformed
		return c.writeLine(joinArray(b.slots))
	}
	return nil
}

// batchlessVersion is the first MCP protocol version without JSON-RPC batches.
const batchlessVersion = "2025-06-18"

// metaVersionKey is where MCP 2026-07-28 requests carry their protocol version.
const metaVersionKey = "io.modelcontextprotocol/protocolVersion"

// check validates one JSON object against JSON-RPC 2.0 and MCP. It returns
// the message to hand to the SDK (nil for a reply to drop), or an error to
// answer with the request's id when one could be read (nil otherwise). A
// call is registered as pending, in b when it came in a batch.
func (c *conn) check(data []byte, b *batch) (jsonrpc.Message, json.RawMessage, *jsonrpc.Error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: " + syntaxText(err)}
	}
	rawID, hasID := obj["id"]
	id, idErr := parseID(rawID)
	var echo json.RawMessage // the id to answer with; nil means null
	if hasID && idErr == "" && id.IsValid() {
		echo = rawID
	}
	invalid := func(msg string) (jsonrpc.Message, json.RawMessage, *jsonrpc.Error) {
		return nil, echo, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request: " + msg}
	}
	if v, ok := obj["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if hasID && idErr != "" {
		return invalid(idErr)
	}
	rawMethod, isRequest := obj["method"]
	if !isRequest {
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if !hasResult && !hasError {
			return invalid(`a request needs a "method" string`)
		}
		// A reply to a call of ours: never answered, whatever its shape.
		m, err := jsonrpc.DecodeMessage(data)
		if _, ok := m.(*jsonrpc.Response); err != nil || !ok || !id.IsValid() {
			c.log.Warn("mcp: dropped a malformed response from the client", "err", err)
			return nil, nil, nil
		}
		return m, nil, nil
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return invalid(`"method" must be a string`)
	}
	params := obj["params"]
	switch {
	case string(params) == "null":
		params = nil
	case len(params) > 0 && params[0] != '{' && params[0] != '[':
		return invalid(`"params" must be an object`)
	}
	c.noteVersion(params)
	req := &jsonrpc.Request{ID: id, Method: method, Params: params}
	if !hasID {
		return req, nil, nil // a notification
	}
	if e := c.register(id, rawID, method, b); e != nil {
		if e.Code != CodeServerBusy {
			echo = nil // a duplicate id is answered with null, not as the call running under it
		}
		return nil, echo, e
	}
	return req, nil, nil
}

// parseID reads a request id: MCP allows a string or an integer (never
// null). Integers beyond ±2^53 are refused because the SDK carries ids as
// float64 and would answer with a different one.
func parseID(raw json.RawMessage) (jsonrpc.ID, string) {
	const msg = `"id" must be a string or an integer`
	if raw == nil {
		return jsonrpc.ID{}, ""
	}
	switch {
	case string(raw) == "null":
		return jsonrpc.ID{}, `"id" must not be null (MCP requests need a string or integer id; omit it for a notification)`
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, msg
		}
		id, _ := jsonrpc.MakeID(s)
		return id, ""
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return jsonrpc.ID{}, msg + " between -2^53 and 2^53"
		}
		id, _ := jsonrpc.MakeID(float64(n))
		return id, ""
	}
	return jsonrpc.ID{}, msg
}

// register records a call; it refuses an id already in flight, and a call
// beyond MaxPendingCalls.
func (c *conn) register(id jsonrpc.ID, rawID json.RawMessage, method string, b *batch) *jsonrpc.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.pending[id]; dup {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"Invalid request: id %s is already used by a call that is still running; use a new id", rawID)}
	}
	if c.open >= c.maxCalls {
		c.log.Warn("mcp: refused a call, too many pending", "method", method, "pending", c.open, "limit", c.maxCalls)
		return busyCalls(c.maxCalls)
	}
	c.open++
	// subscriptions/listen stays open until the client cancels it, so the
	// end of input must not wait for it.
	cl := &call{method: method, drain: method != "subscriptions/listen"}
	if b != nil {
		cl.batch, cl.slot = b, len(b.slots)
		b.slots = append(b.slots, nil)
		b.missing++
		b.calls++
	}
	c.pending[id] = cl
	if cl.drain {
		c.inflight++
	}
	return nil
}

// noteVersion records the protocol version a 2026-07-28 request carries in
// its _meta (such sessions have no initialize).
func (c *conn) noteVersion(params json.RawMessage) {
	if !bytes.Contains(params, []byte(metaVersionKey)) {
		return
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if v, ok := p.Meta[metaVersionKey].(string); ok && v != "" {
		c.mu.Lock()
		c.version = v
		c.mu.Unlock()
	}
}

// Write implements mcp.Connection. An answer to a batched call waits for
// the rest of its batch; an answer to the initialize call also tells the
// negotiated protocol version.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeLine(data)
	}
	c.mu.Lock()
	cl := c.pending[resp.ID]
	var calls, held int // released once data is written
	if cl != nil {
		delete(c.pending, resp.ID)
		if cl.method == "initialize" && resp.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
				c.version = r.ProtocolVersion
			}
		}
		data = c.hold(resp.ID, cl.method, data)
		calls, held = 1, len(data)
		if b := cl.batch; b != nil {
			b.slots[cl.slot] = data
			b.missing--
			b.held += len(data)
			data = nil
			calls, held = 0, 0
			if b.missing == 0 {
				data = joinArray(b.slots)
				calls, held = b.calls, b.held
			}
		}
	}
	c.mu.Unlock()
	if data != nil {
		// The calls stop counting once their answer is next on out (a
		// client that read it may send more at once); the bytes once written.
		err = c.writeLineThen(data, func() { c.release(calls, 0) })
		c.release(0, held)
	}
	if cl != nil && cl.drain {
		c.done()
	}
	return err
}

// done counts one answered call; the last one after the end of input
// releases drain.
func (c *conn) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	if c.inflight == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// reject answers a malformed line with a JSON-RPC error.
func (c *conn) reject(id json.RawMessage, code int64, msg string) error {
	c.log.Warn("mcp: rejected a message", "code", code, "reason", msg)
	return c.writeLine(errorResponse(id, code, msg))
}

func (c *conn) writeLine(data []byte) error { return c.writeLineThen(data, nil) }

// writeLineThen writes data as one line; next, when set, runs once the line
// is next to be written.
func (c *conn) writeLineThen(data []byte, next func()) error {
	line := make([]byte, 0, len(data)+1)
	line = append(append(line, data...), '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if next != nil {
		next()
	}
	if _, err := c.out.Write(line); err != nil {
		return fmt.Errorf("write answer: %w", err)
	}
	return nil
}

// Close implements mcp.Connection: it ends Read and closes In.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if rc, ok := c.in.(io.Closer); ok {
			c.closeErr = rc.Close()
		}
	})
	return c.closeErr
}

// errorResponse encodes a JSON-RPC error answer. The SDK's encoder omits a
// null id, which JSON-RPC requires in an error answer, hence this one.
func errorResponse(id json.RawMessage, code int64, msg string) json.RawMessage {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil { // id came from a validated message; cannot happen
		panic(fmt.Sprintf("mcpserver: encode error response: %v", err))
	}
	return data
}

func joinArray(items []json.RawMessage) []byte {
	out := []byte{'['}
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// syntaxText describes a JSON decoding error with its byte offset.
func syntaxText(err error) string {
	if err == nil {
		return "invalid JSON"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}
