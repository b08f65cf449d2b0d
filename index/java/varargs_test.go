//go:build cgo

package java

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/sitter"
)

// TestBlankVarargsAnnotations: the annotations before a varargs ellipsis
// become spaces of the same length (line breaks kept); every other
// annotation, and text in comments, strings, text blocks and character
// literals, stays.
func TestBlankVarargsAnnotations(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		blank     []string // the annotations that become spaces; none: unchanged
	}{
		{"simple", "void f(String @Nullable ... args) {}", []string{"@Nullable"}},
		{"no space", "void f(String @Nullable...args) {}", []string{"@Nullable"}},
		{"qualified", "void f(Object @org.jspecify.annotations.Nullable ... a) {}", []string{"@org.jspecify.annotations.Nullable"}},
		{"arguments", `void f(int @Size(max = 3, note = ")...") ... a) {}`, []string{`@Size(max = 3, note = ")...")`}},
		{"two in a row", "void f(Object @A @B(1) ... a) {}", []string{"@A @B(1)"}},
		{"comment and line break between", "void f(Object @A /* x */\n  @B ... a) {}", []string{"@A /* x */", "  @B"}},
		{"annotated dimension", "void f(String @A [] @B ... m) {}", []string{"@B"}},
		{"declaration annotation kept", "void f(@Nullable Object @Nullable ... a) {}", []string{"@Nullable ..."}},
		{"plain varargs", "void f(String... args) {}", nil},
		{"annotation elsewhere", "@Override void f(@A String s, int @B [] x) {}", nil},
		{"annotation type", "@interface N { String v() default \"...\"; }", nil},
		{"in a comment", "// String @Nullable ... args\n/* Object @A ... b */ class C {}", nil},
		{"in strings", "String s = \"Object @A ... b\"; String t = \"\"\"\n  x @A ... y\n  \"\"\"; char c = '@';", nil},
		{"unclosed argument list", "void f(Object @A(1 ... a) {}", nil},
		{"at the end", "void f(Object @", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.src
			for _, b := range tt.blank {
				keep := strings.HasSuffix(b, " ...") // the part after the annotation stays
				a := strings.TrimSuffix(b, " ...")
				i := strings.Index(want, a)
				if keep {
					i = strings.LastIndex(want, b)
				}
				want = want[:i] + strings.Repeat(" ", len(a)) + want[i+len(a):]
			}
			got, ok := blankVarargsAnnotations([]byte(tt.src))
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("blankVarargsAnnotations(%q) (-want +got):\n%s", tt.src, diff)
			}
			if ok != (len(tt.blank) > 0) {
				t.Errorf("blankVarargsAnnotations(%q) found = %v, want %v", tt.src, ok, len(tt.blank) > 0)
			}
		})
	}
}

// TestParseVarargsAnnotation: a file whose only syntax error is an
// annotation before a varargs ellipsis parses without errors, and the
// parameter is a spread_parameter read against the file's own bytes.
func TestParseVarargsAnnotation(t *testing.T) {
	src := []byte("interface F {\n    Object getBean(String name, Object @Nullable ... args);\n}\n")
	p := newParser()
	defer p.Close()
	first, err := sitter.ParseLimited(t.Context(), p, src, hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	if !first.RootNode().HasError() {
		t.Fatal("the grammar now parses the annotated varargs form: the rewrite is no longer needed")
	}
	first.Close()
	tree, err := parse(t.Context(), p, src, hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if errs := sitter.SyntaxErrors(tree.RootNode()); len(errs) > 0 {
		t.Fatalf("syntax errors after the rewrite: %v", errs)
	}
	f := extract("F.java", src, tree.RootNode())
	var params []string
	for _, ty := range f.scope.Types {
		for _, m := range ty.Methods {
			params = append(params, m.Params...)
		}
	}
	if diff := cmp.Diff([]string{"String", "Object..."}, params); diff != "" {
		t.Errorf("getBean's parameters (-want +got):\n%s", diff)
	}
}

// FuzzBlankVarargsAnnotations: any input is rewritten to the same length,
// only into spaces, with line breaks kept, and a second rewrite finds
// nothing more.
func FuzzBlankVarargsAnnotations(f *testing.F) {
	for _, s := range []string{
		"void f(String @Nullable ... args) {}",
		`void f(int @Size(max = 3, note = ")...") ... a, Object @a.b.C @D(x = '(') /* c */ ... b) {}`,
		"String s = \"\"\"\n @A ... \"\"\"; // @B ...\n/* @C ... */ char c = '\\''; void g(Object @E ... e);",
		"@interface N {} @ A . B ( ( ) ) ... @",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		orig := bytes.Clone(src)
		got, ok := blankVarargsAnnotations(src)
		if !bytes.Equal(src, orig) {
			t.Fatal("the input was modified")
		}
		if len(got) != len(src) {
			t.Fatalf("length %d, want %d", len(got), len(src))
		}
		changed := false
		for i := range got {
			if got[i] == src[i] {
				continue
			}
			changed = true
			if got[i] != ' ' || src[i] == '\n' || src[i] == '\r' {
				t.Fatalf("byte %d: %q became %q", i, src[i], got[i])
			}
		}
		if changed != ok {
			t.Fatalf("found = %v, but changed = %v", ok, changed)
		}
		if again, ok2 := blankVarargsAnnotations(got); ok2 {
			t.Errorf("a second rewrite changed %q into %q", got, again)
		}
	})
}

// TestMainSourcesParse parses every .java file under a src/main/java
// directory of the tree in RELAY_JAVA_SYNTAX_ROOT (a Spring Framework
// checkout, say) as the frontend does, and fails on each file left with
// syntax errors; it reports how many files the varargs rewrite saved. It
// runs only when asked:
//
//	RELAY_JAVA_SYNTAX_ROOT=$HOME/src/spring-framework go test ./index/java -run MainSourcesParse -v
func TestMainSourcesParse(t *testing.T) {
	root := os.Getenv("RELAY_JAVA_SYNTAX_ROOT")
	if root == "" {
		t.Skip("RELAY_JAVA_SYNTAX_ROOT is not set")
	}
	p := newParser()
	defer p.Close()
	files, rewritten, failed := 0, 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".java") || !strings.Contains(filepath.ToSlash(path), "/src/main/java/") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		tree, err := parse(t.Context(), p, src, hangGuard)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer tree.Close()
		if errs := sitter.SyntaxErrors(tree.RootNode()); len(errs) > 0 {
			failed++
			t.Errorf("%s: %d syntax errors, the first: %s", path, len(errs), errs[0])
		} else if _, ok := blankVarargsAnnotations(src); ok {
			rewritten++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d main source files: %d with syntax errors, %d parsed thanks to the varargs rewrite", files, failed, rewritten)
}
