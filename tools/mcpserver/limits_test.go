package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/tools"
)

// batchOf is one batch line of n echo calls with ids 1..n, each echoing text.
func batchOf(n int, text string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, i+1, text)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// outcomes sorts a batch's answers into ids answered and ids refused with
// CodeServerBusy whose message contains want.
func outcomes(t *testing.T, line, want string) (ok, busy []string) {
	t.Helper()
	var as []answer
	if err := json.Unmarshal([]byte(line), &as); err != nil {
		t.Fatalf("batch answer %.300s: %v", line, err)
	}
	for _, a := range as {
		switch {
		case a.Error == nil:
			ok = append(ok, string(a.ID))
		case a.Error.Code == CodeServerBusy && strings.Contains(a.Error.Message, want):
			busy = append(busy, string(a.ID))
		default:
			t.Errorf("answer %s: unexpected error %+v", a.ID, a.Error)
		}
	}
	return ok, busy
}

// TestMCPBatchCallsBounded sends one batch of more calls than a connection
// may have pending: the first MaxPendingCalls run, every other one is
// refused by id with CodeServerBusy, and the server serves on.
func TestMCPBatchCallsBounded(t *testing.T) {
	t.Parallel()
	w := startWire(t, tools.NewRegistry(echoTool()), Options{}, Transport{MaxPendingCalls: 5})
	w.initialize("2025-03-26")
	w.send(batchOf(20, "hi"))
	ok, busy := outcomes(t, w.recv(), "5 calls of this connection are already running")
	var want []string
	for i := 6; i <= 20; i++ {
		want = append(want, fmt.Sprint(i))
	}
	if diff := cmp.Diff([]string{"1", "2", "3", "4", "5"}, ok); diff != "" {
		t.Errorf("answered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, busy); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	// The answered batch released its calls: a second one runs in full.
	w.send(batchOf(5, "again"))
	if ok, _ := outcomes(t, w.recv(), ""); len(ok) != 5 {
		t.Errorf("second batch: %d answered, want 5", len(ok))
	}
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestMCPBatchBytesBounded: the answers of a batch wait for the whole
// batch, so their bytes are bounded too; the answers beyond
// MaxPendingBytes are replaced by CodeServerBusy errors.
func TestMCPBatchBytesBounded(t *testing.T) {
	t.Parallel()
	const limit = 8 << 10
	w := startWire(t, tools.NewRegistry(echoTool()), Options{}, Transport{MaxPendingBytes: limit})
	w.initialize("2025-03-26")
	w.send(batchOf(10, strings.Repeat("z", 2000)))
	line := w.recv()
	ok, busy := outcomes(t, line, "was withheld because")
	if len(ok) == 0 || len(ok) > 4 || len(ok)+len(busy) != 10 {
		t.Errorf("%d answered, %d withheld; want 1 to 4 answers of about 2 KB within %d bytes and the rest withheld", len(ok), len(busy), limit)
	}
	if len(line) > limit+10*600 {
		t.Errorf("batch answer of %d bytes; want at most the limit plus small errors", len(line))
	}
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestMCPPipelinedCallsRefused pipelines more calls than the bound while
// the first ones cannot finish: the excess is refused at once by id, and
// once the pending calls are answered new calls are accepted again.
func TestMCPPipelinedCallsRefused(t *testing.T) {
	t.Parallel()
	const bound = 4
	g := &gate{name: "slow", started: make(chan struct{}, 16), release: make(chan struct{})}
	w := startWire(t, tools.NewRegistry(g, echoTool()), Options{}, Transport{MaxPendingCalls: bound})
	w.initialize("2025-11-25")
	for i := 1; i <= 10; i++ {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, i))
	}
	var refused []string
	for range 10 - bound {
		a := decode(t, w.recv())
		if a.Error == nil || a.Error.Code != CodeServerBusy || !strings.Contains(a.Error.Message, "send it again") {
			t.Fatalf("answer %s: got %+v %.200s, want a CodeServerBusy refusal", a.ID, a.Error, a.Result)
		}
		refused = append(refused, string(a.ID))
	}
	if diff := cmp.Diff([]string{"5", "6", "7", "8", "9", "10"}, refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	close(g.release)
	for range bound {
		if a := decode(t, w.recv()); a.Error != nil || !strings.Contains(string(a.Result), "slow answer") {
			t.Errorf("answer %s: %+v %.200s", a.ID, a.Error, a.Result)
		}
	}
	w.send(`{"jsonrpc":"2.0","id":"later","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`)
	if a := decode(t, w.recv()); a.Error != nil || string(a.ID) != `"later"` {
		t.Errorf("call after the pending ones were answered: %+v %s", a.Error, a.ID)
	}
	if got := g.calls.Load(); got != bound {
		t.Errorf("slow tool ran %d times, want %d", got, bound)
	}
	if err := w.closeInput(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
