// Command benchcpp measures the C++ indexer on a C++ checkout (fmt): a
// cold index into the embedded store, then a re-index after an edit of
// one source file's function body (that file alone is re-resolved), one
// after an edit of a body in the header every other file includes
// (include/fmt/base.h: its surface is unchanged, so it alone), and one
// after a declaration is added to that header (the files whose
// resolution read it are re-resolved too). Each step runs in its own
// process so that its peak RSS is its own; it works on a copy of the
// sources (.git and build/ left out). CPU seconds are printed next to
// wall seconds because the figures are taken on a shared machine.
//
//	go run ./index/internal/benchcpp -src DIR [-cpuprofile FILE]
//
// Internal mode (used by the parent): -step ROOT STORE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/benchrun"
)

func main() {
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write each step's CPU profile to this file with the step's name appended (.cold, .one-file, …)")
	src := flag.String("src", "", "a checkout of fmt (github.com/fmtlib/fmt)")
	benchrun.Main("benchcpp", func(step bool, args []string) error { return run(step, *src, args) })
}

var cpuProfile string

func run(step bool, src string, args []string) error {
	if step {
		r, err := benchrun.Step(context.Background(), args, cpuProfile)
		if err != nil {
			return err
		}
		fmt.Printf("files %d, resolved %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", r.Sum.Files,
			r.Sum.Languages["C++"].Units, r.Sum.Stats.TotalNodes(), r.Sum.Stats.TotalEdges(), r.Wall, r.CPU, r.RSSMiB,
			r.Phases("cpp."))
		return nil
	}
	if src == "" {
		return errors.New("no checkout given: pass -src with a checkout of fmt")
	}
	c, err := benchrun.NewCorpus("benchcpp", "src", func(root string) error { return copySources(src, root) })
	if err != nil {
		return err
	}
	defer c.Close()
	if cpuProfile != "" {
		c.StepFlags = func(name string) []string { return []string{"-cpuprofile", cpuProfile + "." + name} }
	}
	if err := c.Step("cold"); err != nil {
		return err
	}
	edits := []struct {
		step, file, old, new string
	}{
		{"one-file", "src/os.cc", "return size;", "return size + 0;"},
		{"header-body", "include/fmt/base.h", "return size_; }", "return size_ + 0; }"},
		{"header-decl", "include/fmt/base.h", "FMT_BEGIN_NAMESPACE\n", "FMT_BEGIN_NAMESPACE\nvoid bench_added(int);\n"},
	}
	for _, e := range edits {
		path := filepath.Join(c.Root, filepath.FromSlash(e.file))
		err := c.EditStep(e.step, path, func(s string) string {
			if !strings.Contains(s, e.old) {
				fmt.Fprintf(os.Stderr, "benchcpp: %s lacks %q: the step edits nothing\n", e.file, e.old)
			}
			return strings.Replace(s, e.old, e.new, 1)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copySources copies the checkout's files into root, without .git and
// the build directory.
func copySources(src, root string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || rel == "build" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
}
