package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagPlaceholders: pflag takes the first `quoted` word of a usage text
// as the flag's value placeholder, so "stop `go list` and fail…" printed
// "--list-timeout go list" instead of "--list-timeout duration". Every flag
// of every command shows the placeholder of its type.
func TestFlagPlaceholders(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			got, _ := pflag.UnquoteUsage(f)
			plain := *f
			plain.Usage = strings.ReplaceAll(f.Usage, "`", "")
			want, _ := pflag.UnquoteUsage(&plain)
			if got != want {
				t.Errorf("%s --%s shows the placeholder %q, want %q (a `quoted` word in its usage text)", c.CommandPath(), f.Name, got, want)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&globals{}))

	code, stdout, _ := relay(t, "", "index", "--help")
	if code != 0 || !strings.Contains(stdout, "--list-timeout duration") {
		t.Errorf("relay index --help (exit %d) lacks \"--list-timeout duration\":\n%s", code, stdout)
	}
}

// TestReadmeFlagsExist: every `--flag` the README names is a flag of some
// relay command, so a documented flag cannot silently disappear.
func TestReadmeFlagsExist(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{"help": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { have[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { have[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&globals{}))
	flag := regexp.MustCompile("(?:^|[\\s(\\[|`])--([a-z][a-z0-9-]*)")
	n := 0
	for _, m := range flag.FindAllStringSubmatch(string(readme), -1) {
		n++
		if !have[m[1]] {
			t.Errorf("README.md names --%s, which no relay command has", m[1])
		}
	}
	if n < 30 {
		t.Errorf("found only %d flags in README.md; the pattern no longer matches how it writes them", n)
	}
}
