package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Defaults of the per-connection bounds of a Transport.
const (
	// DefaultMaxPendingCalls is Transport.MaxPendingCalls when zero.
	DefaultMaxPendingCalls = 256
	// DefaultMaxPendingBytes is Transport.MaxPendingBytes when zero.
	DefaultMaxPendingBytes = 32 << 20
)

// CodeServerBusy is the JSON-RPC error code (in the range JSON-RPC leaves
// to servers) of a call refused, or an answer withheld, because the
// connection is over one of its bounds: too many calls pending
// (Transport.MaxPendingCalls) or too many bytes of answers not yet written
// (Transport.MaxPendingBytes). The call did not run, or its answer was
// dropped; the client may send it again once it has read the answers it is
// owed. Its message says which bound and what to do.
const CodeServerBusy int64 = -32001

// DESIGN: memory per connection is bounded by refusing, not by queueing.
// Every call counts from the line that brings it until its answer (or its
// batch's array) is the next line to be written — so at most one answer
// beyond the bound sits in a blocked write, and a client that has read an
// answer may send its next call at once — and a batch of 4,000 calls, or a
// client that pipelines calls and never reads, holds at most
// MaxPendingCalls calls; the rest are answered at once with CodeServerBusy
// (inside the batch's array for a batch). Answers count by their encoded size from the moment
// the server hands them over until they are written: an answer that would
// take the held bytes over MaxPendingBytes is replaced by a small
// CodeServerBusy error for its id. Refusals are written by the reader, so
// a client that reads nothing stops being read too once its pipe fills:
// the server's memory stays bounded whatever the client sends.

// busyCalls is the error refusing a call beyond MaxPendingCalls.
func busyCalls(limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeServerBusy, Message: fmt.Sprintf(
		"Server busy: %d calls of this connection are already running or waiting for their answers to be read (the server's limit); "+
			"this call was not run. Read the answers you are owed, then send it again; send at most %d calls per batch", limit, limit)}
}

// hold returns the answer to write for call id: data itself, or, when
// data would take the answers held over MaxPendingBytes, an error saying
// why it was withheld. Either way its size is added to c.waiting; c.mu is
// held.
func (c *conn) hold(id jsonrpc.ID, method string, data []byte) []byte {
	if c.waiting+len(data) > c.maxBytes {
		c.log.Warn("mcp: withheld an answer, too many bytes waiting to be written", "method", method,
			"bytes", len(data), "waiting", c.waiting, "limit", c.maxBytes)
		rawID, err := json.Marshal(id.Raw())
		if err != nil { // ids are strings or numbers
			rawID = nil
		}
		why := fmt.Sprintf("%s of answers of this connection are waiting to be written and the server's limit is %s", sizeText(c.waiting), sizeText(c.maxBytes))
		if len(data) > c.maxBytes {
			why = fmt.Sprintf("it alone exceeds the server's limit of %s of answers waiting to be written", sizeText(c.maxBytes))
		}
		data = errorResponse(rawID, CodeServerBusy, fmt.Sprintf(
			"Server busy: the answer (%s) was withheld because %s. "+
				"Read the answers you are owed, send fewer calls per batch, or ask for less (a narrower read range, a lower limit), then call again",
			sizeText(len(data)), why))
	}
	c.waiting += len(data)
	return data
}

// release ends the accounting of calls whose answers (bytes in all) are
// written.
func (c *conn) release(calls, bytes int) {
	c.mu.Lock()
	c.open -= calls
	c.waiting -= bytes
	c.mu.Unlock()
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
