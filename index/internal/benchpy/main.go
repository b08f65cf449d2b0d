// Command benchpy measures the Python indexer on the Python standard
// library: a cold index into the embedded store, then a re-index after a
// one-line edit of one file (a function appended to json/decoder.py), then
// one after a method is renamed (cgi.FieldStorage.getvalue, its uses in
// cgi.py too: the importers of cgi and the 134 files whose by-name calls
// look up getvalue, which 7 classes define, are re-resolved). Each step runs in
// its own process so that its peak RSS is its own; it works on a copy of
// the library. CPU seconds are printed next to wall seconds because the
// figures are taken on a shared machine.
//
//	go run ./index/internal/benchpy [-src DIR]
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
	src := flag.String("src", "", "library to copy (default: python3's stdlib)")
	flag.IntVar(&repeat, "repeat", 1, "run the one-file step this many times (another function appended each time), for a median")
	flag.Parse()
	if err := run(*step, *src, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchpy:", err)
		os.Exit(1)
	}
}

var repeat int

func run(step bool, src string, args []string) error {
	if step {
		st, err := embedded.Open(args[1], embedded.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		t := time.Now()
		sum, err := index.Run(context.Background(), st, index.Options{Root: args[0]})
		if err != nil {
			return err
		}
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		var phases []string
		for k, v := range sum.Phases {
			if strings.HasPrefix(k, "py.") || k == "write" {
				phases = append(phases, fmt.Sprintf("%s %.2f", k, v.Seconds()))
			}
		}
		sort.Strings(phases)
		fmt.Printf("files %d, parsed %d, nodes %d, edges %d, %.2f s, %.2f s CPU, peak RSS %d MiB (%s)\n", sum.Files, sum.Modules,
			sum.Stats.TotalNodes(), sum.Stats.TotalEdges(), time.Since(t).Seconds(), cpu, ru.Maxrss/1024, strings.Join(phases, ", "))
		return nil
	}
	if src == "" {
		out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			return fmt.Errorf("find the stdlib (pass -src): %w", err)
		}
		src = strings.TrimSpace(string(out))
	}
	dir, err := os.MkdirTemp("", "benchpy")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "lib")
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
	edited := filepath.Join(root, "json", "decoder.py")
	for i := range max(repeat, 1) {
		f, err := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "\n\ndef _bench_edit%d():\n    return JSONDecoder().decode('1')\n", i)
		f.Close()
		if err := stepRun("one-file"); err != nil {
			return err
		}
	}
	edited = filepath.Join(root, "cgi.py")
	data, err := os.ReadFile(edited)
	if err != nil {
		return err
	}
	if err := os.WriteFile(edited, []byte(strings.ReplaceAll(string(data), "getvalue", "getvalue_renamed")), 0o644); err != nil {
		return err
	}
	return stepRun("method")
}
