package main

import (
	"strings"
	"testing"
	"time"
)

func TestAskCommand(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	base := append([]string{"ask", "--repo", root, "--no-transcript"}, modelFlags...)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantOut    []string
		wantErr    []string
		wantAnswer int // answers printed
	}{
		{
			name: "one question", args: []string{"Where", "are", "SMS", "sent?"},
			wantOut:    []string{"SMS are sent by `Send` at notify/sms.go:4.", "## Retrievals\n\n1. where are SMS sent (2 turns, 1 tool calls)"},
			wantErr:    []string{"== planner", "retriever-1 ▶ where are SMS sent", "== answer", "total"},
			wantAnswer: 1,
		},
		{
			name: "REPL over piped stdin", stdin: "first question\n\n   \nFAIL this one\nsecond question\nexit\nnever asked\n",
			wantErr:    []string{"relay: planner model planner-model: error, status code: 401"},
			wantAnswer: 2,
		},
		{
			name: "REPL ends at EOF", stdin: "only question",
			wantAnswer: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := relayAgent(t, m.env(), tc.stdin, append(base, tc.args...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if got := strings.Count(out, "SMS are sent by `Send`"); got != tc.wantAnswer {
				t.Errorf("%d answers printed, want %d:\n%s", got, tc.wantAnswer, out)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestAskREPLInterrupt sends SIGINT to the process while a question runs:
// the question is cancelled and the REPL goes on to the next one. Not
// parallel: the signal goes to the whole test process.
func TestAskREPLInterrupt(t *testing.T) {
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	args := append([]string{"ask", "--repo", root, "--no-transcript"}, modelFlags...)
	start := time.Now()
	code, out, errOut := relayAgent(t, m.env(), "INTERRUPT me\nsecond question\n", args...)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "relay: cancelled") {
		t.Errorf("stderr does not report the cancelled question:\n%s", errOut)
	}
	if got := strings.Count(out, "SMS are sent by `Send`"); got != 1 {
		t.Errorf("%d answers after the interrupt, want 1:\n%s", got, out)
	}
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("the interrupted question took %v", d)
	}
}

// TestAskREPLLongLine: a question pasted as one line of 2 MiB (twice what
// the line scanner allowed) is answered, and the next line too, instead
// of ending the REPL with "token too long".
func TestAskREPLLongLine(t *testing.T) {
	t.Parallel()
	root := retrievalRepo(t)
	long := strings.Repeat("where is the discount applied ", (2<<20)/30)
	code, stdout, stderr := relay(t, long+"\nhow is a cart checked out?\n", "ask", "--repo", root)
	if code != 0 || strings.Count(stdout, "Context report (offline)") != 2 {
		t.Errorf("REPL with a 2 MiB line: exit %d, %d reports:\n%.1000s\n%s", code, strings.Count(stdout, "Context report (offline)"), stdout, stderr)
	}
}

// TestAskEmptyQuestion: relay ask "" (an empty shell variable) started the
// REPL, read stdin and exited 0 without a word; it is now a usage error.
func TestAskEmptyQuestion(t *testing.T) {
	for _, args := range [][]string{{""}, {"  ", "\t"}} {
		code, stdout, stderr := relay(t, "where is main?\n", append([]string{"--repo", t.TempDir(), "ask"}, args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "the question is empty") {
			t.Errorf("ask %q: exit %d, stdout %q, stderr %q; want 2 and why", args, code, stdout, stderr)
		}
	}
}
