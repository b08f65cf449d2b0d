// Package benchrun owns what the language benchmarks (index/internal/
// benchpy, benchts, benchjava) share: copying a corpus to a temporary
// directory, re-running the benchmark's own executable with -step ROOT
// STORE so that each step's peak RSS is its own, the child's single index
// run with its wall and CPU seconds, peak RSS and phase times, and the
// edits between steps. Each benchmark keeps its corpus, its edits and the
// wording of its result line.
package benchrun

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

// Main defines the internal -step flag next to the flags the benchmark
// has defined, parses the command line and calls run with -step's value
// and the remaining arguments; an error is printed after name and exits 1.
func Main(name string, run func(step bool, args []string) error) {
	step := flag.Bool("step", false, "internal: index ROOT into STORE once and print one line")
	flag.Parse()
	if err := run(*step, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Result is what one step measured in the child process.
type Result struct {
	Sum    index.Summary
	Wall   float64 // seconds of index.Run
	CPU    float64 // user+sys seconds of the whole process: the figure a shared machine does not inflate
	RSSMiB int64   // peak RSS of the process
}

// Phases lists the run's phases named with prefix (such as "py.") and
// "write", sorted, as "name seconds" joined by ", ".
func (r *Result) Phases(prefix string) string {
	var phases []string
	for k, v := range r.Sum.Phases {
		if strings.HasPrefix(k, prefix) || k == "write" {
			phases = append(phases, fmt.Sprintf("%s %.2f", k, v.Seconds()))
		}
	}
	sort.Strings(phases)
	return strings.Join(phases, ", ")
}

// Step is the child's side: args are ROOT STORE; it indexes ROOT into the
// embedded store at STORE once. cpuProfile, when not empty, is the file
// the step's CPU profile is written to.
func Step(ctx context.Context, args []string, cpuProfile string) (*Result, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("-step wants ROOT STORE, got %d arguments", len(args))
	}
	st, err := embedded.Open(args[1], embedded.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	t := time.Now()
	sum, err := index.Run(ctx, st, index.Options{Root: args[0]})
	if err != nil {
		return nil, err
	}
	wall := time.Since(t).Seconds()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return &Result{
		Sum:    sum,
		Wall:   wall,
		CPU:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(),
		RSSMiB: ru.Maxrss / 1024,
	}, nil
}

// Corpus is the parent's side: a copy of the corpus at Root in a
// temporary directory, next to the store the steps index it into, so
// that the edits never touch the original.
type Corpus struct {
	Root string
	// StepFlags, when set, gives the flags put before -step for the named
	// step (benchjava's -cpuprofile FILE.name).
	StepFlags func(name string) []string
	dir       string
	self      string
}

// NewCorpus makes a temporary directory named after pattern (as
// os.MkdirTemp takes it) and has copyTo fill its subdirectory rootName.
// The caller closes the corpus, which removes the directory.
func NewCorpus(pattern, rootName string, copyTo func(root string) error) (*Corpus, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	c := &Corpus{Root: filepath.Join(dir, rootName), dir: dir, self: self}
	if err := copyTo(c.Root); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close removes the copy and the store.
func (c *Corpus) Close() error { return os.RemoveAll(c.dir) }

// Step runs the executable again with -step ROOT STORE and prints its
// output after the step's name.
func (c *Corpus) Step(name string) error {
	var args []string
	if c.StepFlags != nil {
		args = c.StepFlags(name)
	}
	args = append(args, "-step", c.Root, filepath.Join(c.dir, "store"))
	out, err := exec.Command(c.self, args...).CombinedOutput()
	fmt.Printf("%-8s %s", name, out)
	return err
}

// CopyDir copies the directory src to dst (cp -r).
func CopyDir(src, dst string) error {
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", src, err, out)
	}
	return nil
}

// EditStep rewrites the file at path with edit applied to its text, then
// runs the step name as Step does.
func (c *Corpus) EditStep(name, path string, edit func(string) string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(edit(string(data))), 0o644); err != nil {
		return err
	}
	return c.Step(name)
}
