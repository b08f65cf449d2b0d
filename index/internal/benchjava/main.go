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

func main() {
	step := flag.Bool("step", false, "internal: index ROOT into STORE once and print one line")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write each step's CPU profile to this file with the step's name appended (.cold, .one-file)")
	src := flag.String("src", "/usr/lib/jvm/openjdk-17/src.zip", "the JDK's src.zip (its java.base module is used) or a source directory")
	flag.Parse()
	if err := run(*step, *src, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchjava:", err)
		os.Exit(1)
	}
}

var cpuProfile string

func cpu(ru syscall.Rusage) float64 {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func run(step bool, src string, args []string) error {
	if step {
		st, err := embedded.Open(args[1], embedded.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		if cpuProfile != "" {
			f, err := os.Create(cpuProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		t := time.Now()
		sum, err := index.Run(context.Background(), st, index.Options{Root: args[0]})
		if err != nil {
			return err
		}
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		var phases []string
		for k, v := range sum.Phases {
			if strings.HasPrefix(k, "java.") || k == "write" {
				phases = append(phases, fmt.Sprintf("%s %.2f", k, v.Seconds()))
			}
		}
		sort.Strings(phases)
		fmt.Printf("files %d, resolved %d, nodes %d, edges %d, %.2f s wall, %.2f s CPU, peak RSS %d MiB (%s)\n", sum.Files,
			sum.Units["Java"], sum.Stats.TotalNodes(), sum.Stats.TotalEdges(), time.Since(t).Seconds(), cpu(ru), ru.Maxrss/1024,
			strings.Join(phases, ", "))
		return nil
	}
	dir, err := os.MkdirTemp("", "benchjava")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "src")
	if err := copySources(src, root); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	stepRun := func(name string) error {
		args := []string{"-step", root, filepath.Join(dir, "store")}
		if cpuProfile != "" {
			args = append([]string{"-cpuprofile", cpuProfile + "." + name}, args...)
		}
		out, err := exec.Command(self, args...).CombinedOutput()
		fmt.Printf("%-8s %s", name, out)
		return err
	}
	if err := stepRun("cold"); err != nil {
		return err
	}
	edited := filepath.Join(root, "java", "util", "ArrayList.java")
	data, err := os.ReadFile(edited)
	if err != nil {
		return err
	}
	data = []byte(strings.Replace(string(data), "modCount++;", "modCount++; modCount += 0;", 1))
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		return err
	}
	if err := stepRun("one-file"); err != nil {
		return err
	}
	data = []byte(strings.ReplaceAll(string(data), "trimToSize", "trimToSizeRenamed"))
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		return err
	}
	return stepRun("method")
}

// copySources copies a directory, or extracts the java.base module of a
// src.zip, into root.
func copySources(src, root string) error {
	if !strings.HasSuffix(src, ".zip") {
		if out, err := exec.Command("cp", "-r", src, root).CombinedOutput(); err != nil {
			return fmt.Errorf("copy %s: %v: %s", src, err, out)
		}
		return nil
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
