package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/relayhq/relay/tools"
)

// fuzzMaxFrame keeps the frame cap small under fuzzing so that the
// too-large path is reached with small inputs.
const fuzzMaxFrame = 4 << 10

// FuzzFrame feeds arbitrary bytes to the server's stdin between a handshake
// and a tools/list request. Whatever the bytes, the server must not panic or
// exit, must write only JSON-RPC responses, must answer the tools/list
// that follows, must answer every line that is a request with a usable id,
// and must return cleanly when its input closes.
func FuzzFrame(f *testing.F) {
	for _, p := range malformedProbes() {
		switch {
		case len(p.line) <= fuzzMaxFrame:
		case p.line[0] == '[': // deep nesting, kept under the cap
			p.line = strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
		default: // the 20 MB frame, scaled to the fuzzing cap
			p.line = `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"pad":"` + strings.Repeat("a", fuzzMaxFrame) + `"}}`
		}
		f.Add([]byte(p.line))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{}},7]`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\nnot json\n",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5,"arguments":[]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"roots":{}},"clientInfo":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"!!"}}`,
		`{"jsonrpc":"2.0","id":10,"result":{"roots":[]}}`,
	} {
		f.Add([]byte(s))
	}
	reg := tools.NewRegistry(echoTool())
	f.Fuzz(func(t *testing.T, frame []byte) {
		w := startWire(t, reg, Options{}, Transport{MaxFrameBytes: fuzzMaxFrame})
		w.initialize("2025-03-26") // a version with batches, to reach that code too
		sum := sha256.Sum256(frame)
		probe := fmt.Sprintf("probe-%x", sum[:8])
		w.send(string(frame))
		w.send(`{"jsonrpc":"2.0","id":"` + probe + `","method":"tools/list"}`)
		answered := map[string]bool{}
		for !answered["s:"+probe] {
			collectIDs(t, w.recv(), answered)
		}
		if err := w.closeInput(); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		for _, line := range w.rest() {
			collectIDs(t, line, answered)
		}
		for _, id := range requestIDs(frame) {
			if !answered[id] {
				t.Errorf("no answer for the request with id %s", id)
			}
		}
	})
}

// collectIDs checks that line is a JSON-RPC response (or a batch of them)
// and records the ids it answers.
func collectIDs(t *testing.T, line string, ids map[string]bool) {
	t.Helper()
	var many []json.RawMessage
	if strings.HasPrefix(line, "[") {
		if err := json.Unmarshal([]byte(line), &many); err != nil || len(many) == 0 {
			t.Fatalf("server wrote a bad batch answer (%v): %.300s", err, line)
		}
	} else {
		many = []json.RawMessage{json.RawMessage(line)}
	}
	for _, m := range many {
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(m, &r); err != nil || r.JSONRPC != "2.0" || (r.Result == nil) == (r.Error == nil) || r.ID == nil {
			t.Fatalf("server wrote something that is not a JSON-RPC response (%v): %.300s", err, m)
		}
		if k, ok := idKey(r.ID); ok {
			ids[k] = true
		}
	}
}

// requestIDs lists the ids of the lines of frame that are requests the
// server must answer with their id: a JSON object (within the frame cap)
// with a string id or an integer id within ±2^53, that is not a reply
// (no method but a result or error) nor subscriptions/listen, which stays
// open until cancelled.
func requestIDs(frame []byte) []string {
	var ids []string
	for _, line := range bytes.Split(frame, []byte("\n")) {
		line = bytes.TrimSpace(bytes.TrimSuffix(line, []byte("\r")))
		if len(line) == 0 || len(line) > fuzzMaxFrame || line[0] != '{' || !utf8.Valid(line) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) != nil {
			continue
		}
		k, ok := idKey(obj["id"])
		if !ok {
			continue
		}
		method, isRequest := obj["method"]
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if !isRequest && (hasResult || hasError) {
			continue
		}
		if string(method) == `"subscriptions/listen"` {
			continue
		}
		ids = append(ids, k)
	}
	return ids
}

// idKey normalises a usable JSON-RPC id: "s:" + a string, "n:" + an integer.
func idKey(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s:" + s, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > 1<<53 || n < -(1<<53) {
		return "", false
	}
	return "n:" + strconv.FormatInt(n, 10), true
}
