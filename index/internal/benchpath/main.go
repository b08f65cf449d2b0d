// Command benchpath measures `relay index` on the pathological corpus
// (index/internal/pathcorpus): for each kind it writes the kind's small
// repository to a temporary directory and runs the given relay binary on
// it once per -repeat, printing the median wall seconds, the peak RSS of
// the run and how it ended (indexed, crashed with a stack overflow, killed
// at the memory cap, stopped at the time limit). A run is stopped at
// -timeout and killed when its RSS passes -max-rss, so that a build
// without budgets can be measured on a shared machine.
//
//	go build -o /tmp/relay ./cmd/relay
//	go run ./index/internal/benchpath -relay /tmp/relay [-kinds py-parens-1e6,js-bundle-20MB] [-timeout 120s]
//
// Flags after -- go to `relay index` (such as --max-file-size). With
// -write DIR it only writes the kinds' repositories beneath DIR.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/relayhq/relay/index/internal/pathcorpus"
)

func main() {
	relay := flag.String("relay", "", "the relay binary to measure (required)")
	kinds := flag.String("kinds", "", "comma-separated kinds to run (default: all)")
	timeout := flag.Duration("timeout", 120*time.Second, "stop a run after this long")
	maxRSS := flag.Int64("max-rss", 4096, "kill a run whose RSS passes this many MiB")
	repeat := flag.Int("repeat", 1, "runs per kind (the median is printed)")
	write := flag.String("write", "", "only write each kind's repository beneath this directory (for runs by hand)")
	flag.Parse()
	var err error
	if *write != "" {
		err = writeAll(*write, *kinds)
	} else {
		err = run(*relay, *kinds, *timeout, *maxRSS, *repeat, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchpath:", err)
		os.Exit(1)
	}
}

// selected parses -kinds: the set of kind names, empty for all.
func selected(only string) map[string]bool {
	want := map[string]bool{}
	for _, k := range strings.Split(only, ",") {
		if k != "" {
			want[k] = true
		}
	}
	return want
}

// writeAll writes the selected kinds' repositories into dir/<kind>.
func writeAll(dir, only string) error {
	want := selected(only)
	for _, k := range pathcorpus.Kinds() {
		if len(want) == 0 || want[k.Name] {
			if err := k.Write(filepath.Join(dir, k.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func run(relay, only string, timeout time.Duration, maxRSS int64, repeat int, extra []string) error {
	if relay == "" {
		return errors.New("no relay binary: build one (go build -o /tmp/relay ./cmd/relay) and pass -relay /tmp/relay")
	}
	want := selected(only)
	tmp, err := os.MkdirTemp("", "benchpath")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("%-28s %10s  %9s  %9s  %s\n", "kind", "bytes", "wall s", "peak MiB", "outcome")
	for _, k := range pathcorpus.Kinds() {
		if len(want) > 0 && !want[k.Name] {
			continue
		}
		var walls []float64
		var rss int64
		var outcome string
		for i := range max(repeat, 1) {
			dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", k.Name, i))
			if err := k.Write(dir); err != nil {
				return err
			}
			m := measure(relay, dir, timeout, maxRSS, extra)
			walls, rss, outcome = append(walls, m.wall), max(rss, m.rssMiB), m.outcome
			os.RemoveAll(dir)
		}
		sort.Float64s(walls)
		fmt.Printf("%-28s %10d  %9.2f  %9d  %s\n", k.Name, len(k.Files()[k.File]), walls[len(walls)/2], rss, outcome)
	}
	return nil
}

type measurement struct {
	wall    float64
	rssMiB  int64
	outcome string
}

// measure runs relay index on dir once.
func measure(relay, dir string, timeout time.Duration, maxRSS int64, extra []string) measurement {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string{"index", "--repo", dir}, extra...)
	cmd := exec.CommandContext(ctx, relay, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limited{b: &stderr, max: 64 << 10}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return measurement{outcome: "start: " + err.Error()}
	}
	capped := make(chan int64, 1)
	stop := make(chan struct{})
	go watchRSS(cmd.Process.Pid, maxRSS, capped, stop, cmd.Process.Kill)
	err := cmd.Wait()
	close(stop)
	m := measurement{wall: time.Since(t0).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssMiB = ru.Maxrss >> 10
	}
	select {
	case c := <-capped:
		m.outcome = fmt.Sprintf("killed at the memory cap (RSS %d MiB) after %.0f s", c, m.wall)
		return m
	default:
	}
	switch {
	case ctx.Err() != nil:
		m.outcome = fmt.Sprintf("did not finish in %s (stopped)", timeout)
	case err == nil:
		m.outcome = "indexed: " + summaryLine(stdout.String())
	case strings.Contains(stderr.String(), "stack overflow"):
		m.outcome = "crashed (stack overflow)"
	case strings.Contains(stderr.String(), "out of memory"):
		m.outcome = "crashed (out of memory)"
	default:
		m.outcome = fmt.Sprintf("failed (%v): %s", err, lastLine(stderr.String()))
	}
	return m
}

// summaryLine picks what relay index said about the pathological file:
// its error or note lines, else the files count.
func summaryLine(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(l, "nesting") || strings.Contains(l, "limit") || strings.Contains(l, "minified") ||
			strings.Contains(l, "deadline") || strings.Contains(l, "panic") || strings.HasPrefix(l, "Files:") || strings.HasPrefix(l, "Indexed") {
			keep = append(keep, l)
		}
	}
	keep = slices.Compact(keep)
	if len(keep) > 3 {
		keep = keep[:3]
	}
	return strings.Join(keep, " | ")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// watchRSS polls the process's RSS and kills it past maxMiB.
func watchRSS(pid int, maxMiB int64, capped chan<- int64, stop <-chan struct{}, kill func() error) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return
		}
		for _, l := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if kb>>10 > maxMiB {
					capped <- kb >> 10
					kill()
					return
				}
			}
		}
	}
}

// limited keeps the first max bytes written (a crash's goroutine dump is
// 100k lines; its first lines say what happened).
type limited struct {
	b   *bytes.Buffer
	max int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
