// Command mcpbench measures the peak memory of `relay mcp` under a hostile
// client: one JSON-RPC batch of many read calls (-mode batch), or many
// pipelined calls written without reading a single answer (-mode
// pipeline). It creates a repository holding one file of -file-kb KB,
// starts the given relay binary on it, sends the calls and prints the
// server's peak resident set size (VmHWM) with what came back.
//
//	go build -o /tmp/relay ./cmd/relay
//	go run ./tools/mcpserver/mcpbench -relay /tmp/relay -calls 4000
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	relay := flag.String("relay", "relay", "relay binary to measure")
	calls := flag.Int("calls", 4000, "read calls to send")
	fileKB := flag.Int("file-kb", 300, "size of the file every call reads, in KB")
	mode := flag.String("mode", "batch", "batch: one batch line of every call; pipeline: one call per line, no answer read until all are sent and -wait has passed")
	wait := flag.Duration("wait", 20*time.Second, "pipeline mode: how long the server runs before answers are read")
	flag.Parse()
	if err := run(*relay, *calls, *fileKB, *mode, *wait); err != nil {
		log.Fatal(err)
	}
}

func run(relay string, calls, fileKB int, mode string, wait time.Duration) error {
	root, err := os.MkdirTemp("", "mcpbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat(line, fileKB*10)), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(relay, "--repo", root, "mcp")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	br := bufio.NewReaderSize(out, 1<<20)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}`)
	if _, err := br.ReadString('\n'); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read","arguments":{"file":"big.txt"}}}`, i)
	}
	start := time.Now()
	var ok, refused, answers int
	count := func(data []byte) {
		var all []answer
		if len(data) > 0 && data[0] == '[' {
			_ = json.Unmarshal(data, &all)
		} else {
			var a answer
			_ = json.Unmarshal(data, &a)
			all = append(all, a)
		}
		for _, a := range all {
			answers++
			if a.Error != nil {
				refused++
			} else {
				ok++
			}
		}
	}
	switch mode {
	case "batch":
		parts := make([]string, calls)
		for i := range parts {
			parts[i] = req(i + 1)
		}
		fmt.Fprintln(in, "["+strings.Join(parts, ",")+"]")
		data, err := br.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("batch answer: %w", err)
		}
		count(data)
	case "pipeline":
		go func() {
			for i := range calls {
				fmt.Fprintln(in, req(i+1))
			}
		}()
		time.Sleep(wait)
		for answers < calls {
			data, err := br.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("answers: %w", err)
			}
			count(data)
		}
	default:
		return fmt.Errorf("unknown -mode %q", mode)
	}
	hwm := peakRSS(cmd.Process.Pid)
	in.Close()
	_ = cmd.Wait()
	fmt.Printf("mode=%s calls=%d file_kb=%d answered=%d refused=%d peak_rss_mb=%.0f elapsed=%s\n",
		mode, calls, fileKB, ok, refused, float64(hwm)/1024, time.Since(start).Round(time.Millisecond))
	return nil
}

// answer is one JSON-RPC answer: a result or an error.
type answer struct {
	Error  *struct{ Code int } `json:"error"`
	Result json.RawMessage     `json:"result"`
}

// peakRSS is the process's VmHWM in KB, or 0.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return 0
}
