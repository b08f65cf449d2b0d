// Command benchjava measures the Java indexer on the JDK's java.base
// sources: a cold index into the embedded store, then a re-index after an
// edit of one file (a method body's text: the file alone is re-resolved),
// then one after a method of that file is renamed (ArrayList.trimToSize:
// the files whose resolution read ArrayList.java and those whose by-name
// calls look up either name with no argument are re-resolved).
// Each step runs in its own process so that its peak RSS is its own; it
// works on a copy of the sources. CPU seconds are printed next to wall
// seconds because the figures are taken on a shared machine.
//
//	go run ./index/internal/benchjava [-src src.zip|DIR] [-cpuprofile FILE]
//
// Internal mode (used by the parent): -step ROOT STORE.
package main

import (
	"archive/zip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/benchrun"
)

func main() {
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write each step's CPU profile to this file with the step's name appended (.cold, .one-file)")
	src := flag.String("src", "/usr/lib/jvm/openjdk-17/src.zip", "the JDK's src.zip (its java.base module is used) or a source directory")
	benchrun.Main("benchjava", func(step bool, args []string) error { return run(step, *src, args) })
}

var cpuProfile string

func run(step bool, src string, args []string) error {
	if step {
		r, err := benchrun.Step(context.Background(), args, cpuProfile)
		if err != nil {
			return err
		}
		fmt.Printf("files %d, resolved %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", r.Sum.Files,
			r.Sum.Languages["Java"].Units, r.Sum.Stats.TotalNodes(), r.Sum.Stats.TotalEdges(), r.Wall, r.CPU, r.RSSMiB,
			r.Phases("java."))
		return nil
	}
	c, err := benchrun.NewCorpus("benchjava", "src", func(root string) error { return copySources(src, root) })
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
	edited := filepath.Join(c.Root, "java", "util", "ArrayList.java")
	if err := c.EditStep("one-file", edited, func(s string) string { return strings.Replace(s, "modCount++;", "modCount++; modCount += 0;", 1) }); err != nil {
		return err
	}
	return c.EditStep("method", edited, func(s string) string { return strings.ReplaceAll(s, "trimToSize", "trimToSizeRenamed") })
}

// copySources copies a directory, or extracts the java.base module of a
// src.zip, into root.
func copySources(src, root string) error {
	if !strings.HasSuffix(src, ".zip") {
		return benchrun.CopyDir(src, root)
	}
	zr, err := zip.OpenReader(src)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer zr.Close()
	const prefix = "java.base/"
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, prefix) || !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		dst := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(f.Name, prefix)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
