// Command benchts measures the TypeScript/JavaScript indexer on rxjs 7.8.1
// as published on npm (its src/ .ts sources, the compiled dist/ .js files
// and .d.ts files; the copy index/internal/tscheck's npm packages hold): a
// cold index into the embedded store, then a re-index after a comment is
// appended to src/internal/Subscription.ts, then one after a method of
// that file is renamed (Subscription._addParent, its uses in the file too:
// the files that read it and those whose by-name calls look up either name
// are re-resolved). Each step runs in its own process so that its peak RSS
// is its own; it works on a copy of the package. CPU seconds are printed
// next to wall seconds because the figures are taken on a shared machine.
//
//	go run ./index/internal/benchts [-src DIR]
//
// Internal mode (used by the parent): -step ROOT STORE.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

func main() {
	step := flag.Bool("step", false, "internal: index ROOT into STORE once and print one line")
	src := flag.String("src", "index/internal/tscheck/node_modules/rxjs", "the package to copy (npm ci in index/internal/tscheck installs rxjs)")
	flag.Parse()
	if err := run(*step, *src, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchts:", err)
		os.Exit(1)
	}
}

func run(step bool, src string, args []string) error {
	if step {
		return indexOnce(args[0], args[1])
	}
	if _, err := os.Stat(filepath.Join(src, "src", "internal", "Subscription.ts")); err != nil {
		return fmt.Errorf("rxjs sources (run npm ci in index/internal/tscheck, or pass -src): %w", err)
	}
	dir, err := os.MkdirTemp("", "benchts")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "rxjs")
	if out, err := exec.Command("cp", "-r", src, root).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", src, err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	stepRun := func(name string) error {
		out, err := exec.Command(self, "-step", root, filepath.Join(dir, "store")).CombinedOutput()
		fmt.Printf("%-8s %s", name, out)
		return err
	}
	if err := stepRun("cold"); err != nil {
		return err
	}
	edited := filepath.Join(root, "src", "internal", "Subscription.ts")
	data, err := os.ReadFile(edited)
	if err != nil {
		return err
	}
	data = append(data, "\n// edited\n"...)
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		return err
	}
	if err := stepRun("one-file"); err != nil {
		return err
	}
	data = []byte(strings.ReplaceAll(string(data), "_addParent", "_addParentRenamed"))
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		return err
	}
	return stepRun("method")
}

// indexOnce indexes root into the store at dir and prints one line.
func indexOnce(root, dir string) error {
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	t := time.Now()
	sum, err := index.Run(context.Background(), st, index.Options{Root: root})
	if err != nil {
		return err
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	var phases []string
	for k, v := range sum.Phases {
		if strings.HasPrefix(k, "ts.") || k == "write" {
			phases = append(phases, fmt.Sprintf("%s %.2f", k, v.Seconds()))
		}
	}
	sort.Strings(phases)
	fmt.Printf("files %d, extracted %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", sum.Files,
		sum.Units["TypeScript/JavaScript"], sum.Stats.TotalNodes(), sum.Stats.TotalEdges(), time.Since(t).Seconds(), cpu,
		ru.Maxrss/1024, strings.Join(phases, ", "))
	return nil
}
