// Command benchstd measures the Go indexer on the Go standard library
// (GOROOT/src: modules std and cmd) against go/packages alone, and reports
// cold index time, the ratio to go/packages, peak RSS, and the times of a
// re-index after a one-line edit in net/http and of a no-change re-index.
//
// Each measured step runs in a child process so its peak RSS is its own.
// The index steps run on a copy of GOROOT (src, VERSION, go.env and a link
// to pkg) in a temporary directory, so the edit never touches the real
// tree; GOROOT is pointed at the copy for those steps.
//
//	go run ./index/internal/benchstd            # all steps
//	go run ./index/internal/benchstd -keep DIR  # keep the copy and store in DIR
//
// Internal modes (used by the parent): -step load|index ROOT [STORE].
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

func main() {
	step := flag.String("step", "", "internal: run one step (load, index) and exit")
	keep := flag.String("keep", "", "work in this directory and keep it (default: a temporary directory, removed)")
	verbose := flag.Bool("v", false, "log the indexer's debug output")
	flag.Parse()
	var err error
	if *step != "" {
		err = runStep(*step, flag.Args(), *verbose)
	} else {
		err = parent(*keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchstd:", err)
		os.Exit(1)
	}
}

// runStep is a child: it does one thing and prints one result line.
func runStep(step string, args []string, verbose bool) error {
	ctx := context.Background()
	switch step {
	case "load":
		if len(args) != 1 {
			return fmt.Errorf("-step load ROOT")
		}
		start := time.Now()
		n := 0
		for _, dir := range []string{args[0], filepath.Join(args[0], "cmd")} {
			cfg := &packages.Config{
				Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps |
					packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
				Dir: dir, Tests: true, Context: ctx,
			}
			pkgs, err := packages.Load(cfg, "./...")
			if err != nil {
				return err
			}
			n += len(pkgs)
			runtime.KeepAlive(pkgs)
		}
		fmt.Printf("packages=%d time=%s\n", n, time.Since(start).Round(time.Millisecond))
	case "index":
		if len(args) != 2 {
			return fmt.Errorf("-step index ROOT STORE")
		}
		st, err := embedded.Open(args[1], embedded.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		opts := index.Options{Root: args[0]}
		if verbose {
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
		sum, err := index.Run(ctx, st, opts)
		if err != nil {
			return err
		}
		var phases []string
		for k, v := range sum.Phases {
			phases = append(phases, fmt.Sprintf("%s:%s", k, v.Round(time.Millisecond)))
		}
		fmt.Printf("time=%s packages=%d files=%d changed=%d unchanged=%v nodes=%d edges=%d errors=%d phases=[%s]\n",
			sum.Duration.Round(time.Millisecond), sum.Languages["Go"].Units, sum.Files, sum.Changed, sum.Unchanged,
			sum.Stats.TotalNodes(), sum.Stats.TotalEdges(), len(sum.Errors), strings.Join(phases, " "))
		for i, d := range sum.Errors {
			if i == 10 {
				fmt.Fprintf(os.Stderr, "… %d more\n", len(sum.Errors)-10)
				break
			}
			fmt.Fprintln(os.Stderr, "diagnostic:", d)
		}
	default:
		return fmt.Errorf("unknown step %q", step)
	}
	return nil
}

type measured struct {
	wall time.Duration
	rss  int64 // bytes
	out  string
}

func child(env []string, args ...string) (measured, error) {
	exe, err := os.Executable()
	if err != nil {
		return measured{}, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	m := measured{wall: time.Since(start), out: strings.TrimSpace(string(out))}
	if err != nil {
		return m, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = ru.Maxrss * 1024
	}
	return m, nil
}

func parent(keep string) error {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	work := keep
	if work == "" {
		d, err := os.MkdirTemp("", "benchstd-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	copyRoot := filepath.Join(work, "goroot")
	store := filepath.Join(work, "store")
	_ = os.RemoveAll(copyRoot)
	_ = os.RemoveAll(store)
	if err := os.MkdirAll(copyRoot, 0o755); err != nil {
		return err
	}
	fmt.Printf("copying %s/src to %s\n", goroot, copyRoot)
	if out, err := exec.Command("cp", "-r", filepath.Join(goroot, "src"), copyRoot).CombinedOutput(); err != nil {
		return fmt.Errorf("copy GOROOT/src: %v: %s", err, out)
	}
	for _, f := range []string{"VERSION", "go.env"} {
		if data, err := os.ReadFile(filepath.Join(goroot, f)); err == nil {
			if err := os.WriteFile(filepath.Join(copyRoot, f), data, 0o644); err != nil {
				return err
			}
		}
	}
	if err := os.Symlink(filepath.Join(goroot, "pkg"), filepath.Join(copyRoot, "pkg")); err != nil {
		return err
	}
	src := filepath.Join(copyRoot, "src")
	env := []string{"GOROOT=" + copyRoot}

	load, err := child(env, "-step", "load", src)
	if err != nil {
		return err
	}
	fmt.Printf("go/packages load+typecheck: %s  peak RSS %s  (%s)\n", load.wall.Round(time.Millisecond), mib(load.rss), load.out)
	cold, err := child(env, "-step", "index", src, store)
	if err != nil {
		return err
	}
	fmt.Printf("index cold:                 %s  peak RSS %s  (%s)\n", cold.wall.Round(time.Millisecond), mib(cold.rss), cold.out)
	fmt.Printf("ratio index/go-packages:    %.2f\n", float64(cold.wall)/float64(load.wall))

	same, err := child(env, "-step", "index", src, store)
	if err != nil {
		return err
	}
	fmt.Printf("no-change re-index:         %s  peak RSS %s  (%s)\n", same.wall.Round(time.Millisecond), mib(same.rss), same.out)

	target := filepath.Join(src, "net", "http", "server.go")
	data, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	edited := strings.Replace(string(data), "func (c *conn) serve(ctx context.Context) {", "func (c *conn) serve(ctx context.Context) { _ = 0", 1)
	if edited == string(data) {
		edited = string(data) + "\n// benchstd edit\n"
	}
	if err := os.WriteFile(target, []byte(edited), 0o644); err != nil {
		return err
	}
	edit, err := child(env, "-step", "index", src, store)
	if err != nil {
		return err
	}
	fmt.Printf("re-index after net/http edit: %s  peak RSS %s  (%s)\n", edit.wall.Round(time.Millisecond), mib(edit.rss), edit.out)
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }
