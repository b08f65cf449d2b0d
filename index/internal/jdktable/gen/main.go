// Command gen writes index/java/jdk.txt, the JDK signature table of the
// Java frontend, from the installed JDK's javap:
//
//	go run ./index/internal/jdktable/gen [-javap javap] [-o index/java/jdk.txt]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/relayhq/relay/index/internal/jdktable"
)

func main() {
	javap := flag.String("javap", "javap", "the javap binary")
	out := flag.String("o", "index/java/jdk.txt", "where to write the table")
	flag.Parse()
	b, err := jdktable.Generate(context.Background(), *javap)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
