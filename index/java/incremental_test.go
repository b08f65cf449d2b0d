//go:build cgo

package java_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestIncremental edits, adds and deletes Java files and checks after
// each step that the incremental graph equals a fresh full index of the
// same tree, that dependents were re-resolved when a file's declarations
// changed and that a body-only edit re-resolves that file alone.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	const shape = "src/main/java/com/acme/shape/"
	steps := []struct {
		name      string
		change    func()
		extracted int // files re-resolved, -1: not checked
		want      []string
		notWant   []string
	}{
		{
			name: "edit a body only",
			change: func() {
				write(shape+"Circle.java", strings.Replace(indextest.ReadFile(t, root, shape+"Circle.java"), "return Math.PI * r * r;", "return Math.PI * r * r * scaled(1).r;", 1))
			},
			extracted: 1,
			want:      []string{"edge calls java:com.acme.shape.Circle.area -> java:com.acme.shape.Circle.scaled @" + shape + "Circle.java:20"},
		},
		{
			name: "change an overload's parameter type",
			change: func() {
				write(shape+"Log.java", strings.Replace(indextest.ReadFile(t, root, shape+"Log.java"), "print(int n)", "print(long n)", 1))
			},
			extracted: -1,
			want:      []string{"edge calls java:com.acme.app.App.run -> java:com.acme.shape.Log.print(long) @src/main/java/com/acme/app/App.java:30"},
			notWant:   []string{"Log.print(int)"},
		},
		{
			name: "add a file",
			change: func() {
				write("src/main/java/com/acme/app/Extra.java", "package com.acme.app;\n\nclass Extra {\n    void go() {\n        new App().run(2);\n    }\n}\n")
			},
			extracted: -1,
			want:      []string{"edge calls java:com.acme.app.Extra.go -> java:com.acme.app.App.run @src/main/java/com/acme/app/Extra.java:5"},
		},
		{
			name:      "delete a file other files use",
			change:    func() { os.Remove(filepath.Join(root, filepath.FromSlash(shape+"Square.java"))) },
			extracted: -1,
			notWant:   []string{"java:com.acme.shape.Square.Builder.build", "java:com.acme.shape.Square "},
		},
	}
	for _, s := range steps {
		s.change()
		sum := indexrun.Run(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		if s.extracted >= 0 && sum.Languages["Java"].Units != s.extracted {
			t.Errorf("%s: %d files re-resolved, want %d", s.name, sum.Languages["Java"].Units, s.extracted)
		}
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := indexrun.Run(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}

// TestDuplicateTypes: two files declaring the same class (two source
// sets) index without clashing ids — the first in path order keeps the
// plain ids, the other's carry its path — and deleting or adding one of
// them moves the plain ids as a full index would.
func TestDuplicateTypes(t *testing.T) {
	root := t.TempDir()
	src := "package p;\n\nclass A {\n    void m() {\n        n();\n    }\n\n    void n() {}\n}\n"
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/src/p/A.java")
	write("b/src/p/A.java")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	got := indextest.Dump(t, st)
	for _, w := range []string{
		"edge calls java:p.A.m -> java:p.A.n @a/src/p/A.java:5",
		"edge calls java:p.A.m@b/src/p/A.java -> java:p.A.n@b/src/p/A.java @b/src/p/A.java:5",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("dump lacks %q:\n%s", w, got)
		}
	}
	for _, step := range []struct {
		name   string
		change func()
		want   string
	}{
		{"delete the first", func() { os.Remove(filepath.Join(root, "a", "src", "p", "A.java")) }, "edge calls java:p.A.m -> java:p.A.n @b/src/p/A.java:5"},
		{"add it back", func() { write("a/src/p/A.java") }, "edge calls java:p.A.m@b/src/p/A.java -> java:p.A.n@b/src/p/A.java @b/src/p/A.java:5"},
	} {
		step.change()
		indexrun.Run(t, st, root, false)
		got := indextest.MatchesFullIndex(t, step.name, st, root, indexrun.Run)
		if !strings.Contains(got, step.want) {
			t.Errorf("%s: dump lacks %q:\n%s", step.name, step.want, got)
		}
	}
}
