// Command benchrust measures the Rust indexer on tokio (the base tree of
// one of the Rust instances of ../shared/realissues-systems, or any
// directory): a cold index into the embedded store, then a re-index after
// an edit of one file (a statement added to a function body of
// tokio/src/runtime/handle.rs: the file alone is re-resolved), then one
// after a method of that file is renamed (Handle::enter: the files whose
// resolution read handle.rs and those whose by-name calls look up either
// name are re-resolved). Each step runs in its own process so that its
// peak RSS is its own; it works on a copy of the sources. CPU seconds are
// printed next to wall seconds because the figures are taken on a shared
// machine.
//
//	go run ./index/internal/benchrust [-src DIR] [-cpuprofile FILE]
//
// Internal mode (used by the parent): -step ROOT STORE.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/benchrun"
)

func main() {
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write each step's CPU profile to this file with the step's name appended (.cold, .one-file)")
	src := flag.String("src", "/tmp/tokio", "a checkout of tokio (git clone ../shared/realissues-systems/tokio-rs__tokio.bundle)")
	benchrun.Main("benchrust", func(step bool, args []string) error { return run(step, *src, args) })
}

var cpuProfile string

func run(step bool, src string, args []string) error {
	if step {
		r, err := benchrun.Step(context.Background(), args, cpuProfile)
		if err != nil {
			return err
		}
		fmt.Printf("files %d, resolved %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", r.Sum.Files,
			r.Sum.Languages["Rust"].Units, r.Sum.Stats.TotalNodes(), r.Sum.Stats.TotalEdges(), r.Wall, r.CPU, r.RSSMiB,
			r.Phases("rust."))
		return nil
	}
	c, err := benchrun.NewCorpus("benchrust", "src", func(root string) error { return benchrun.CopyDir(src, root) })
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
	edited := filepath.Join(c.Root, "tokio", "src", "runtime", "handle.rs")
	const enter = "pub fn enter(&self) -> EnterGuard<'_> {"
	if data, err := os.ReadFile(edited); err != nil || !strings.Contains(string(data), enter) {
		return fmt.Errorf("%s lacks %q (%v): -src must be a tokio checkout", edited, enter, err)
	}
	if err := c.EditStep("one-file", edited, func(s string) string {
		return strings.Replace(s, enter, enter+"\n        let _ = Handle::current();", 1)
	}); err != nil {
		return err
	}
	return c.EditStep("method", edited, func(s string) string { return strings.ReplaceAll(s, "fn enter(", "fn enter_renamed(") })
}
