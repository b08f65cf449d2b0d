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
	"strings"

	"github.com/relayhq/relay/index/internal/benchrun"
)

func main() {
	src := flag.String("src", "", "library to copy (default: python3's stdlib)")
	flag.IntVar(&repeat, "repeat", 1, "run the one-file step this many times (another function appended each time), for a median")
	benchrun.Main("benchpy", func(step bool, args []string) error { return run(step, *src, args) })
}

var repeat int

func run(step bool, src string, args []string) error {
	if step {
		r, err := benchrun.Step(context.Background(), args, "")
		if err != nil {
			return err
		}
		fmt.Printf("files %d, parsed %d, nodes %d, edges %d, %.2f s, %.2f s CPU, peak RSS %d MiB (%s)\n", r.Sum.Files, r.Sum.Languages["Python"].Units,
			r.Sum.Stats.TotalNodes(), r.Sum.Stats.TotalEdges(), r.Wall, r.CPU, r.RSSMiB, r.Phases("py."))
		return nil
	}
	if src == "" {
		out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			return fmt.Errorf("find the stdlib (pass -src): %w", err)
		}
		src = strings.TrimSpace(string(out))
	}
	c, err := benchrun.NewCorpus("benchpy", "lib", func(root string) error { return benchrun.CopyDir(src, root) })
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Step("cold"); err != nil {
		return err
	}
	edited := filepath.Join(c.Root, "json", "decoder.py")
	for i := range max(repeat, 1) {
		f, err := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "\n\ndef _bench_edit%d():\n    return JSONDecoder().decode('1')\n", i)
		f.Close()
		if err := c.Step("one-file"); err != nil {
			return err
		}
	}
	return c.EditStep("method", filepath.Join(c.Root, "cgi.py"), func(s string) string { return strings.ReplaceAll(s, "getvalue", "getvalue_renamed") })
}
