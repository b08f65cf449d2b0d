package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/tools"
)

// echoTool answers its text argument back; it needs no external program.
func echoTool() tools.Tool {
	type params struct {
		Text string `json:"text"`
	}
	return tools.New("echo", "echoes text", json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		func(_ context.Context, p params) (tools.Result, error) { return tools.Result{Content: p.Text}, nil })
}

// toolsListAfter is the request every probe is followed by; it must be answered.
const toolsListAfter = `{"jsonrpc":"2.0","id":"after","method":"tools/list"}`

// probe is one line sent to the server and the errors it must answer with.
type probe struct {
	name string
	line string
	want []wantErr // answers before the tools/list answer, in order
}

type wantErr struct {
	ID      string // the answer's id, as JSON
	Code    int64
	Message string // a substring of the error message
}

// malformedProbes are the messages of issue 9 item 8 (and a few more) that
// used to end the server.
func malformedProbes() []probe {
	big := `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"pad":"` + strings.Repeat("a", 20<<20) + `"}}`
	return []probe{
		{"not json", "not json", []wantErr{{"null", -32700, "Parse error: invalid character 'o' in literal null"}}},
		{"empty object", "{}", []wantErr{{"null", -32600, `"jsonrpc" must be "2.0"`}}},
		{"empty array", "[]", []wantErr{{"null", -32600, "empty batch"}}},
		{"null", "null", []wantErr{{"null", -32600, "must be a JSON object"}}},
		{"truncated object", `{"jsonrpc":"2.0","id":7,"method":"tools/list"`, []wantErr{{"null", -32700, "unexpected end of JSON input"}}},
		{"object as id", `{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list"}`, []wantErr{{"null", -32600, `"id" must be a string or an integer`}}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xff\xfe\"}}", []wantErr{{"null", -32700, "not valid UTF-8 (first bad byte at offset 66)"}}},
		{"two objects on a line", `{"jsonrpc":"2.0","id":9,"method":"ping"}{"jsonrpc":"2.0","id":10,"method":"ping"}`, []wantErr{{"null", -32700, "after top-level value"}}},
		{"20 MB frame", big, []wantErr{{"null", -32600, fmt.Sprintf("a message of %d bytes exceeds the 16 MiB limit", len(big)+1)}}},
		{"number", "42", []wantErr{{"null", -32600, "must be a JSON object"}}},
		{"string", `"hello"`, []wantErr{{"null", -32600, "must be a JSON object"}}},
		{"wrong version", `{"jsonrpc":"1.0","id":12,"method":"ping"}`, []wantErr{{"12", -32600, `"jsonrpc" must be "2.0"`}}},
		{"no version", `{"id":"v","method":"ping"}`, []wantErr{{`"v"`, -32600, `"jsonrpc" must be "2.0"`}}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []wantErr{{"null", -32600, `"id" must not be null`}}},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, []wantErr{{"null", -32600, `"id" must be a string or an integer`}}},
		{"id beyond 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, []wantErr{{"null", -32600, "between -2^53 and 2^53"}}},
		{"array as id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, []wantErr{{"null", -32600, `"id" must be a string or an integer`}}},
		{"method not a string", `{"jsonrpc":"2.0","id":"m","method":5}`, []wantErr{{`"m"`, -32600, `"method" must be a string`}}},
		{"no method", `{"jsonrpc":"2.0","id":"n"}`, []wantErr{{`"n"`, -32600, `a request needs a "method" string`}}},
		{"params not an object", `{"jsonrpc":"2.0","id":"p","method":"tools/list","params":3}`, []wantErr{{`"p"`, -32600, `"params" must be an object`}}},
		{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), []wantErr{{"null", -32700, "exceeded max depth"}}},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, []wantErr{{"null", -32600, "not part of MCP protocol version 2025-11-25"}}},
		{"unsolicited reply", `{"jsonrpc":"2.0","id":"r","result":{}}`, nil},
		{"malformed reply", `{"jsonrpc":"2.0","id":"r","error":"boom"}`, nil},
		{"blank line", "   \t", nil},
		{"notification of a call method", `{"jsonrpc":"2.0","method":"tools/list"}`, nil},
		{"CRLF line ending", "{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r", []wantErr{{`"crlf"`, 0, ""}}},
	}
}

// TestMCPMalformedMessages sends each probe, then tools/list: the server
// answers the probe with the JSON-RPC error the spec asks for and still
// answers tools/list.
func TestMCPMalformedMessages(t *testing.T) {
	t.Parallel()
	for _, p := range malformedProbes() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			w := startWire(t, tools.NewRegistry(echoTool()), Options{}, Transport{})
			w.initialize("2025-11-25")
			w.send(p.line)
			w.send(toolsListAfter)
			var got []wantErr
			// Errors for malformed lines are written before the next line is
			// read; answers to calls (the CRLF ping) may overtake each other.
			for after := false; !after || len(got) < len(p.want); {
				a := decode(t, w.recv())
				if string(a.ID) == `"after"` {
					if a.Error != nil || !strings.Contains(string(a.Result), `"name":"echo"`) {
						t.Errorf("tools/list after the probe: %+v %s", a.Error, a.Result)
					}
					after = true
					continue
				}
				g := wantErr{ID: string(a.ID)}
				if a.Error != nil {
					g.Code, g.Message = a.Error.Code, a.Error.Message
				}
				got = append(got, g)
			}
			if len(got) != len(p.want) {
				t.Fatalf("answers before tools/list: got %+v, want %+v", got, p.want)
			}
			for i := range got {
				if got[i].ID != p.want[i].ID || got[i].Code != p.want[i].Code || !strings.Contains(got[i].Message, p.want[i].Message) {
					t.Errorf("answer %d: got %+v, want %+v", i, got[i], p.want[i])
				}
			}
			if err := w.closeInput(); err != nil {
				t.Errorf("Serve: %v", err)
			}
			if rest := w.rest(); len(rest) > 0 {
				t.Errorf("unexpected answers: %q", rest)
			}
		})
	}
}

// TestMCPBatches checks JSON-RPC batches at a protocol version that has them
// (2025-03-26): one array answers the calls, notifications get nothing, and
// malformed elements get their error inside the array.
func TestMCPBatches(t *testing.T) {
	t.Parallel()
	w := startWire(t, tools.NewRegistry(echoTool()), Options{}, Transport{})
	w.initialize("2025-03-26")
	w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},5,{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":{}}]`)
	w.send(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}]`) // notifications only: no answer
	w.send(`[1,"x"]`)
	w.send(toolsListAfter)
	var batches [][]answer
	after := 0
	single := func(line string) {
		if a := decode(t, line); string(a.ID) != `"after"` || a.Error != nil {
			t.Errorf("unexpected single answer %s", line)
		}
		after++
	}
	for len(batches) < 2 {
		line := w.recv()
		if !strings.HasPrefix(line, "[") {
			single(line)
			continue
		}
		var b []answer
		if err := json.Unmarshal([]byte(line), &b); err != nil {
			t.Fatalf("batch answer %s: %v", line, err)
		}
		batches = append(batches, b)
	}
	// The all-malformed batch is answered at once; the other when its calls are done.
	sort.Slice(batches, func(i, j int) bool { return len(batches[i]) < len(batches[j]) })
	type row struct {
		ID   string
		Code int64
		OK   bool
	}
	rows := func(b []answer) []row {
		var rs []row
		for _, a := range b {
			r := row{ID: string(a.ID), OK: a.Error == nil && len(a.Result) > 0}
			if a.Error != nil {
				r.Code = a.Error.Code
			}
			rs = append(rs, r)
		}
		return rs
	}
	if diff := cmp.Diff([]row{{"null", -32600, false}, {"null", -32600, false}}, rows(batches[0])); diff != "" {
		t.Errorf("all-malformed batch (-want +got):\n%s", diff)
	}
	want := []row{{"1", 0, true}, {"2", 0, true}, {"null", -32600, false}, {"null", -32600, false}, {"null", -32600, false}}
	if diff := cmp.Diff(want, rows(batches[1])); diff != "" {
		t.Errorf("mixed batch (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(batches[1][1].Result), `"text":"hi"`) {
		t.Errorf("echo in batch: %s", batches[1][1].Result)
	}
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	for _, line := range w.rest() {
		single(line)
	}
	if after != 1 {
		t.Errorf("tools/list answered %d times, want once", after)
	}
}

// gate is a tool that blocks until released, counting the calls running.
type gate struct {
	name    string
	started chan struct{}
	release chan struct{}
	delay   time.Duration
	inner   tools.Tool // called after the wait, when set

	running, max atomic.Int32
	calls        atomic.Int32
}

func (g *gate) Name() string {
	if g.inner != nil {
		return g.inner.Name()
	}
	return g.name
}
func (g *gate) Description() string     { return "waits" }
func (g *gate) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (g *gate) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for m := g.max.Load(); n > m && !g.max.CompareAndSwap(m, n); m = g.max.Load() {
	}
	g.calls.Add(1)
	if g.started != nil {
		g.started <- struct{}{}
	}
	if g.release != nil {
		<-g.release
	}
	time.Sleep(g.delay)
	if g.inner != nil {
		return g.inner.Call(ctx, args)
	}
	return tools.Result{Content: "slow answer"}, nil
}

// TestMCPInputClosedWithCallInFlight closes stdin while a slow tool call runs:
// its answer must still be written before Serve returns.
func TestMCPInputClosedWithCallInFlight(t *testing.T) {
	t.Parallel()
	g := &gate{name: "slow", started: make(chan struct{}, 1), release: make(chan struct{})}
	w := startWire(t, tools.NewRegistry(g), Options{}, Transport{})
	w.initialize("2025-11-25")
	w.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-g.started
	w.in.Close()
	select {
	case err := <-w.done:
		t.Fatalf("Serve returned (%v) with a call in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(g.release)
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	rest := w.rest()
	if len(rest) != 1 {
		t.Fatalf("got %d answers after stdin closed, want 1: %q", len(rest), rest)
	}
	if a := decode(t, rest[0]); string(a.ID) != `"slow-1"` || !strings.Contains(string(a.Result), "slow answer") {
		t.Errorf("answer: %s", rest[0])
	}
}

// TestMCPPipelinedCallsBounded pipelines 200 tools/call grep requests (issue 9
// item 3): every one is answered and at most MaxConcurrent run at once.
func TestMCPPipelinedCallsBounded(t *testing.T) {
	t.Parallel()
	needTools(t)
	grep, err := tools.NewGrep(tools.Options{Root: repo(t)})
	if err != nil {
		t.Fatal(err)
	}
	const calls, bound = 200, 8
	// The delay makes calls overlap, so the bound is reached, not just respected.
	g := &gate{inner: grep, delay: 50 * time.Millisecond}
	w := startWire(t, tools.NewRegistry(g), Options{MaxConcurrent: bound}, Transport{})
	w.initialize("2025-11-25")
	var b strings.Builder
	for i := range calls {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"Greet","context":0}}}`+"\n", i)
	}
	var sendErr error
	var wg sync.WaitGroup
	wg.Go(func() { _, sendErr = w.in.Write([]byte(b.String())) })
	seen := map[string]bool{}
	for len(seen) < calls {
		a := decode(t, w.recv())
		if a.Error != nil || !strings.Contains(string(a.Result), "3 matching lines in 2 files") || strings.Contains(string(a.Result), `"isError":true`) {
			t.Fatalf("answer %s: %+v %.200s", a.ID, a.Error, a.Result)
		}
		seen[string(a.ID)] = true
	}
	wg.Wait()
	if sendErr != nil {
		t.Fatal(sendErr)
	}
	if got := g.calls.Load(); got != calls {
		t.Errorf("tool ran %d times, want %d", got, calls)
	}
	if got := g.max.Load(); got != bound {
		t.Errorf("at most %d calls ran at once, want exactly the bound %d", got, bound)
	}
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
