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
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/benchrun"
)

func main() {
	src := flag.String("src", "index/internal/tscheck/node_modules/rxjs", "the package to copy (npm ci in index/internal/tscheck installs rxjs)")
	benchrun.Main("benchts", func(step bool, args []string) error { return run(step, *src, args) })
}

func run(step bool, src string, args []string) error {
	if step {
		r, err := benchrun.Step(context.Background(), args, "")
		if err != nil {
			return err
		}
		fmt.Printf("files %d, extracted %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", r.Sum.Files,
			r.Sum.Languages["TypeScript/JavaScript"].Units, r.Sum.Stats.TotalNodes(), r.Sum.Stats.TotalEdges(), r.Wall, r.CPU,
			r.RSSMiB, r.Phases("ts."))
		return nil
	}
	if _, err := os.Stat(filepath.Join(src, "src", "internal", "Subscription.ts")); err != nil {
		return fmt.Errorf("rxjs sources (run npm ci in index/internal/tscheck, or pass -src): %w", err)
	}
	c, err := benchrun.NewCorpus("benchts", "rxjs", func(root string) error { return benchrun.CopyDir(src, root) })
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Step("cold"); err != nil {
		return err
	}
	edited := filepath.Join(c.Root, "src", "internal", "Subscription.ts")
	if err := c.EditStep("one-file", edited, func(s string) string { return s + "\n// edited\n" }); err != nil {
		return err
	}
	return c.EditStep("method", edited, func(s string) string { return strings.ReplaceAll(s, "_addParent", "_addParentRenamed") })
}
