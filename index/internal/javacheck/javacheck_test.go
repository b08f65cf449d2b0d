//go:build cgo

package javacheck

import (
	"archive/zip"
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

// need returns the javac and javap binaries, skipping (failing under CI)
// when the JDK is missing.
func need(t *testing.T) (javac, javap string) {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err == nil {
		javap, err = exec.LookPath("javap")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("a JDK (javac, javap) is required under CI (run scripts/setup.sh): %v", err)
		}
		t.Skipf("no JDK (javac, javap): %v", err)
	}
	return javac, javap
}

// check indexes root and compares it with the classes.
func check(t *testing.T, root string, o Options) Result {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d files in %s", sum.Files, time.Since(start).Round(time.Millisecond))
	r, err := Check(t.Context(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range r.Misses {
		if i < 40 {
			t.Logf("missed: %s", m)
		}
	}
	for i, w := range r.Wrong {
		if i < 40 {
			t.Logf("not in the compiler's: %s", w)
		}
	}
	for i, u := range r.Unmapped {
		if i < 10 {
			t.Logf("unmapped: %s", u)
		}
	}
	return r
}

// TestFixture compiles testdata/fixture with javac and requires relay's
// calls to match the compiled invoke instructions.
func TestFixture(t *testing.T) {
	javac, javap := need(t)
	root, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			srcs = append(srcs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if b, err := exec.CommandContext(t.Context(), javac, append([]string{"-d", out}, srcs...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	var classes []string
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".class") {
			rel, _ := filepath.Rel(out, p)
			classes = append(classes, strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".class"), "/", "."))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, root, Options{Root: root, Javap: javap, Classpath: out, Classes: classes})
	t.Logf("fixture: %s", r.Score)
	t.Logf("fixture, javac's implicit calls counted: %s", r.All)
	// Implicit.java's enhanced for and try-with-resources over the
	// fixture's own types: every iterator/hasNext/next/close javac writes
	// there is a relay edge.
	for _, m := range r.AllMisses {
		if strings.Contains(m, "more.Implicit.") {
			t.Errorf("implicit call missed: %s", m)
		}
	}
	// javac's sites there: Bag.iterator() on the for's line (hasNext and
	// next go through java.util.Iterator, outside the fixture) and
	// Handle.close() on the resource's and the block's lines.
	if r.All.Hit-r.Hit < 3 {
		t.Errorf("%d implicit call sites hit, want at least 3 (Implicit.java: iterator, close)", r.All.Hit-r.Hit)
	}
	if r.Truth < 30 {
		t.Fatalf("only %d call sites in the truth: the fixture is too small to measure", r.Truth)
	}
	if r.Precision() < 0.95 || r.Recall() < 0.90 {
		t.Errorf("precision %.4f recall %.4f, want >= 0.95 and >= 0.90", r.Precision(), r.Recall())
	}
}

// TestJavaBase indexes the JDK's java.base sources (src.zip; the path in
// RELAY_JAVACHECK_JAVA_BASE, "1" for the Debian openjdk-17-source one) and
// compares them with the runtime image's java.base classes. It takes
// minutes: it runs only when asked.
func TestJavaBase(t *testing.T) {
	zipPath := os.Getenv("RELAY_JAVACHECK_JAVA_BASE")
	if zipPath == "" {
		t.Skip("set RELAY_JAVACHECK_JAVA_BASE to the JDK's src.zip (1: /usr/lib/jvm/openjdk-17/src.zip)")
	}
	if zipPath == "1" {
		zipPath = "/usr/lib/jvm/openjdk-17/src.zip"
	}
	_, javap := need(t)
	root := t.TempDir()
	unzipModule(t, zipPath, "java.base/", root)
	real, err := filepath.EvalSymlinks(javap)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Dir(filepath.Dir(real))
	list, err := exec.CommandContext(t.Context(), filepath.Join(home, "bin", "jimage"), "list", filepath.Join(home, "lib", "modules")).Output()
	if err != nil {
		t.Fatalf("jimage list: %v", err)
	}
	classes := moduleClasses(list, "java.base")
	r := check(t, root, Options{Root: root, Javap: javap, Module: "java.base", Classes: classes})
	t.Logf("java.base (%d classes): %s", len(classes), r.Score)
	t.Logf("java.base, javac's implicit calls counted: %s", r.All)
	if r.Precision() < 0.95 || r.Recall() < 0.90 {
		t.Errorf("precision %.4f recall %.4f, want >= 0.95 and >= 0.90", r.Precision(), r.Recall())
	}
}

// unzipModule extracts the entries under prefix (without it) into dir.
func unzipModule(t *testing.T, zipPath, prefix, dir string) {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, prefix) || !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(f.Name, prefix)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// moduleClasses reads `jimage list` output: the binary names of a
// module's classes.
func moduleClasses(list []byte, module string) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		l := sc.Text()
		if m, ok := strings.CutPrefix(l, "Module: "); ok {
			in = strings.TrimSpace(m) == module
			continue
		}
		l = strings.TrimSpace(l)
		if in && strings.HasSuffix(l, ".class") && !strings.HasSuffix(l, "module-info.class") {
			out = append(out, strings.ReplaceAll(strings.TrimSuffix(l, ".class"), "/", "."))
		}
	}
	return out
}
