// Command benchgoedit measures a one-line Go edit re-indexed by whole
// `relay index` commands, several relay binaries side by side (this
// branch's and main's), against `go list -export ./...` on the same tree in
// the same rounds.
//
// Each binary indexes the tree once into a store of its own (the cold run,
// reported once); then every round edits the body (a statement inserted
// after the first occurrence of -after in -file, with a value no round used
// before, so that the go command's build cache holds no compilation of it),
// runs each binary's `relay index` (their order alternating between
// rounds) and `go list -export ./...` from -list-dir. It prints, per
// binary, the median wall time of the whole command, its median CPU time
// (user+sys with the go commands it ran), the median graph part (the
// "Indexed … in D" of its summary) and the search part ("… in D." of the
// search index line), and each as a ratio to the median of go list.
//
//	go run ./index/internal/benchgoedit -root DIR -file net/http/server.go \
//	  -after 'func (c *conn) serve(ctx context.Context) {' \
//	  -relay new=/tmp/relay -relay main=/tmp/relay-main -rounds 5 -env GOROOT=...
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

type binary struct{ name, path, store string }

func main() {
	var relays, envs multi
	root := flag.String("root", "", "the tree to index (the repository root)")
	file := flag.String("file", "", "the file to edit, relative to -root")
	after := flag.String("after", "", "the edit inserts a statement after the first occurrence of this text")
	listDir := flag.String("list-dir", "", "where go list -export ./... runs (default: -root)")
	rounds := flag.Int("rounds", 5, "edits measured")
	work := flag.String("work", "", "directory for the stores (default: a temporary one, removed)")
	reuse := flag.Bool("reuse", false, "keep the stores already in -work (the cold runs then re-index what changed since)")
	flag.Var(&relays, "relay", "NAME=PATH of a relay binary (repeat)")
	flag.Var(&envs, "env", "KEY=VALUE added to every command's environment (repeat)")
	flag.Parse()
	if err := run(*root, *file, *after, *listDir, *work, *rounds, *reuse, relays, envs); err != nil {
		fmt.Fprintln(os.Stderr, "benchgoedit:", err)
		os.Exit(1)
	}
}

func run(root, file, after, listDir, work string, rounds int, reuse bool, relays, envs []string) error {
	if root == "" || file == "" || after == "" || len(relays) == 0 {
		return errors.New("want -root, -file, -after and at least one -relay NAME=PATH")
	}
	if listDir == "" {
		listDir = root
	}
	if work == "" {
		d, err := os.MkdirTemp("", "benchgoedit-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	var bins []binary
	for _, r := range relays {
		name, path, ok := strings.Cut(r, "=")
		if !ok {
			return fmt.Errorf("-relay %q: want NAME=PATH", r)
		}
		store := filepath.Join(work, "store-"+name)
		if !reuse {
			if err := os.RemoveAll(store); err != nil {
				return err
			}
		}
		bins = append(bins, binary{name, path, store})
	}
	env := append(os.Environ(), envs...)
	target := filepath.Join(root, filepath.FromSlash(file))
	orig, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	defer os.WriteFile(target, orig, 0o644)
	if !strings.Contains(string(orig), after) {
		return fmt.Errorf("%s lacks %q", file, after)
	}
	for _, b := range bins {
		m, err := relayIndex(b, root, env)
		if err != nil {
			return err
		}
		fmt.Printf("cold %-6s whole %6.2fs (cpu %6.2fs)  graph %6.2fs  search %6.2fs\n", b.name, m.whole, m.cpu, m.graph, m.search)
	}
	if _, _, err := timed(listDir, env, "go", "list", "-export", "./..."); err != nil { // the build cache holds the tree
		return err
	}
	all := map[string][]measure{}
	var lists, listCPUs []float64
	for i := 0; i < rounds; i++ {
		// A value no earlier round used: the go command's build cache
		// holds no compilation of this text, as after a real edit.
		edited := strings.Replace(string(orig), after, after+fmt.Sprintf(" _ = %d;", time.Now().UnixNano()), 1)
		if err := os.WriteFile(target, []byte(edited), 0o644); err != nil {
			return err
		}
		order := append([]binary(nil), bins...)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, b := range order {
			m, err := relayIndex(b, root, env)
			if err != nil {
				return err
			}
			all[b.name] = append(all[b.name], m)
		}
		l, lc, err := timed(listDir, env, "go", "list", "-export", "./...")
		if err != nil {
			return err
		}
		lists, listCPUs = append(lists, l), append(listCPUs, lc)
		fmt.Printf("round %d: go list -export %.2fs (cpu %.2fs)", i+1, l, lc)
		for _, b := range bins {
			m := all[b.name][i]
			fmt.Printf("  %s %.2fs (cpu %.2fs, graph %.2fs)", b.name, m.whole, m.cpu, m.graph)
		}
		fmt.Println()
	}
	lm, lc := median(lists), median(listCPUs)
	fmt.Printf("\nmedians of %d edits: go list -export ./... %.2fs (cpu %.2fs)\n", rounds, lm, lc)
	for _, b := range bins {
		var w, c, g, s []float64
		for _, m := range all[b.name] {
			w, c, g, s = append(w, m.whole), append(c, m.cpu), append(g, m.graph), append(s, m.search)
		}
		fmt.Printf("%-6s whole %6.2fs (%.2fx go list)  cpu %6.2fs (%.2fx)  graph %6.2fs (%.2fx)  search %6.2fs\n",
			b.name, median(w), median(w)/lm, median(c), median(c)/lc, median(g), median(g)/lm, median(s))
	}
	return nil
}

// measure is one relay index: the whole command's wall time, its CPU time
// (user+sys, the go commands it waited for included: the figure a shared
// machine inflates least) and the two parts its summary reports, in
// seconds.
type measure struct{ whole, cpu, graph, search float64 }

// cpuOf is the user+sys time of a finished command and the children it
// waited for.
func cpuOf(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

var (
	graphLine  = regexp.MustCompile(`(?m)^(?:Indexed .* in ([0-9hmsµn.]+):|Index of .* is up to date \(.* in ([0-9hmsµn.]+)\))`)
	goSummary  = regexp.MustCompile(`(?m)^Go: .*$`)
	searchLine = regexp.MustCompile(`(?m)^Search index: .* in ([0-9hmsµn.]+?)\.\s*$`)
)

func relayIndex(b binary, root string, env []string) (measure, error) {
	cmd := exec.Command(b.path, "index", "--repo", root, "--store", b.store)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	m := measure{whole: time.Since(start).Seconds()}
	if cmd.ProcessState != nil {
		m.cpu = cpuOf(cmd.ProcessState)
	}
	if err != nil {
		return m, fmt.Errorf("%s index: %v\n%s", b.name, err, out)
	}
	g, s := graphLine.FindSubmatch(out), searchLine.FindSubmatch(out)
	if g == nil || s == nil {
		return m, fmt.Errorf("%s index: no summary in its output:\n%s", b.name, out)
	}
	gd, err1 := time.ParseDuration(string(g[1]) + string(g[2]))
	sd, err2 := time.ParseDuration(string(s[1]))
	if err := errors.Join(err1, err2); err != nil {
		return m, err
	}
	m.graph, m.search = gd.Seconds(), sd.Seconds()
	if goLine := goSummary.Find(out); goLine != nil {
		fmt.Printf("  %s: %s\n", b.name, goLine)
	}
	return m, nil
}

// timed runs a command and returns its wall and CPU seconds.
func timed(dir string, env []string, name string, args ...string) (wall, cpu float64, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v\n%.2000s", name, strings.Join(args, " "), err, out)
	}
	return time.Since(start).Seconds(), cpuOf(cmd.ProcessState), nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
