//go:build cgo

package java

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/jdktable"
)

// TestJDKTableMatchesJavap regenerates the JDK signature table from
// the installed JDK's javap and requires the embedded one to be the same
// (run `go run ./index/internal/jdktable/gen` after changing the class
// list). Without a JDK it skips, and fails under CI.
func TestJDKTableMatchesJavap(t *testing.T) {
	javap := needJDK(t, "javap")[0]
	fresh, err := jdktable.Generate(t.Context(), javap)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jdkTable, string(fresh)); diff != "" {
		t.Errorf("index/java/jdk.txt differs from javap's signatures; run go run ./index/internal/jdktable/gen (-embedded +javap):\n%s", diff)
	}
}

// needJDK returns the paths of the JDK's tools, skipping the test when
// one is missing, and failing it under CI.
func needJDK(t *testing.T, tools ...string) []string {
	t.Helper()
	var paths []string
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required under CI (run scripts/setup.sh): %v", tool, err)
			}
			t.Skipf("no %s: %v", tool, err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestJDKTypes checks what the frontend reads from the table: every
// listed class, with the generic signatures the typing relies on.
func TestJDKTypes(t *testing.T) {
	byQ := map[string]*typeDef{}
	for _, ty := range jdkTypes() {
		byQ[ty.Q] = ty
	}
	for _, c := range jdktable.Classes {
		if byQ[strings.ReplaceAll(c, "$", ".")] == nil {
			t.Errorf("%s is not in the table", c)
		}
	}
	method := func(q, name string, nparams int) *methodDef {
		for _, m := range byQ[q].Methods {
			if m.Name == name && len(m.Params) == nparams {
				return m
			}
		}
		t.Fatalf("%s.%s/%d is not in the table", q, name, nparams)
		return nil
	}
	type sig struct {
		TParams, Params []string
		Ret             string
		Abstract        bool
	}
	for _, tt := range []struct {
		q, name string
		n       int
		want    sig
	}{
		{"java.lang.Iterable", "forEach", 1, sig{Params: []string{"java.util.function.Consumer<? super T>"}, Ret: "void"}},
		{"java.util.Map", "computeIfAbsent", 2, sig{Params: []string{"K", "java.util.function.Function<? super K, ? extends V>"}, Ret: "V"}},
		{"java.util.stream.Stream", "map", 1, sig{TParams: []string{"R"}, Params: []string{"java.util.function.Function<? super T, ? extends R>"}, Ret: "java.util.stream.Stream<R>", Abstract: true}},
		{"java.util.function.BiConsumer", "accept", 2, sig{Params: []string{"T", "U"}, Ret: "void", Abstract: true}},
		{"java.util.Map.Entry", "getValue", 0, sig{Ret: "V", Abstract: true}},
	} {
		m := method(tt.q, tt.name, tt.n)
		got := sig{TParams: m.TParams, Params: m.Params, Ret: m.Ret, Abstract: m.Abstract}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s.%s (-want +got):\n%s", tt.q, tt.name, diff)
		}
	}
	if sam := singleAbstract(byQ["java.util.Comparator"]); sam == nil || sam.Name != "compare" {
		t.Errorf("Comparator's single abstract method = %+v, want compare", sam)
	}
	if got := byQ["java.util.ArrayList"].Super; got != "java.util.AbstractList<E>" {
		t.Errorf("ArrayList's superclass = %q", got)
	}
}
