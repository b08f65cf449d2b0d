//go:build cgo

package java_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/index/java"
)

// TestVarargsAgainstJavap compiles testdata/varargs.txtar (Spring
// Framework's BeanFactory with its annotated varargs, and the other forms
// of an annotation before "...") with javac and requires relay's methods
// of each class to be javap's: names and, where a name is overloaded,
// parameter types (relay's overload suffix). The grammar alone lost the
// varargs parameter and indexed getBean(String, Object...) as a second
// getBean(String). Without a JDK it skips, and fails under CI.
func TestVarargsAgainstJavap(t *testing.T) {
	jdk := java.NeedJDK(t, "javac", "javap")
	javac, javap := jdk[0], jdk[1]
	root := indextest.ExtractTxtar(t, "varargs")
	// javac compiles what App uses from the source path: every class.
	src := filepath.Join(root, "src", "main", "java")
	out := t.TempDir()
	cmd := exec.CommandContext(t.Context(), javac, "-d", out, "-sourcepath", src, filepath.Join(src, "org", "example", "app", "App.java"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	st := indextest.OpenStore()
	sum := indexrun.Run(t, st, root, false)
	if len(sum.Errors) > 0 {
		t.Errorf("index errors: %v", sum.Errors)
	}
	dump := indextest.Dump(t, st)
	for _, class := range []string{"org.example.beans.BeanFactory", "org.example.beans.Forms"} {
		b, err := exec.CommandContext(t.Context(), javap, "-p", "-cp", out, class).CombinedOutput()
		if err != nil {
			t.Fatalf("javap %s: %v\n%s", class, err, b)
		}
		want := javapMethods(string(b))
		if len(want) < 6 {
			t.Fatalf("javap %s: only %d methods read:\n%s", class, len(want), b)
		}
		if diff := cmp.Diff(want, relayMethods(dump, class)); diff != "" {
			t.Errorf("%s: methods (-javap +relay):\n%s", class, diff)
		}
	}
}

// javapMethod matches a method line of javap -p: its name and parameters.
var javapMethod = regexp.MustCompile(`^\s+(?:[\w.<>?,\[\] ]+ )?(\w+)\(([^)]*)\)`)

// javapMethods returns the methods javap lists (constructors left out),
// sorted: "name" alone, or "name(T1,T2)" with simple, erased parameter
// types ("Object[]" for Object...) when the name is overloaded.
func javapMethods(text string) []string {
	type m struct{ name, params string }
	var ms []m
	count := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		g := javapMethod.FindStringSubmatch(line)
		if g == nil || !strings.HasSuffix(strings.TrimSpace(line), ";") {
			continue
		}
		var params []string
		for _, p := range java.TypeArgs("<" + g[2] + ">") {
			p = strings.ReplaceAll(strings.TrimSpace(p), "...", "[]")
			if i := strings.IndexByte(p, '<'); i >= 0 {
				p = p[:i] + p[strings.LastIndexByte(p, '>')+1:]
			}
			params = append(params, p[strings.LastIndexByte(p, '.')+1:])
		}
		ms = append(ms, m{g[1], strings.Join(params, ",")})
		count[g[1]]++
	}
	var out []string
	for _, x := range ms {
		if count[x.name] > 1 {
			out = append(out, x.name+"("+x.params+")")
		} else {
			out = append(out, x.name)
		}
	}
	slices.Sort(out)
	return out
}

// relayMethods returns the methods relay indexed in class, as
// javapMethods renders javap's (its overload suffix is the same form).
func relayMethods(dump, class string) []string {
	var out []string
	prefix := "node java:" + class + "."
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, prefix) || !strings.Contains(line, " member/method ") {
			continue
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(line, prefix), " ")
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
