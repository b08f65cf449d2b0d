// Command callcheck prints how the indexer's static call edges compare
// with golang.org/x/tools/go/callgraph/static on a repository, and its
// implements edges with go/types (-implements, on by default; see package
// index/internal/callcheck for what is compared). On the Go standard
// library:
//
//	go run ./index/internal/callcheck/cmd/callcheck -root "$(go env GOROOT)/src" -tests
//
// Loading a whole repository with syntax for SSA is memory-hungry (several
// GB for std with tests); -tests=false halves it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/relayhq/relay/index/internal/callcheck"
)

func main() {
	root := flag.String("root", ".", "repository (module) root")
	tests := flag.Bool("tests", false, "include test packages")
	keep := flag.Int("keep", 30, "differing edges to print on each side")
	impl := flag.Bool("implements", true, "also compare implements edges with go/types")
	flag.Parse()
	pats := flag.Args()
	start := time.Now()
	rep, err := callcheck.Compare(context.Background(), callcheck.Options{Root: *root, Patterns: pats, Tests: *tests, Keep: *keep, Implements: *impl})
	if err != nil {
		fmt.Fprintln(os.Stderr, "callcheck:", err)
		os.Exit(1)
	}
	fmt.Print(rep)
	fmt.Printf("time=%s\n", time.Since(start).Round(time.Millisecond))
}
