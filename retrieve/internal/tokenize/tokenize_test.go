package tokenize

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"camel", "parseFlags", []string{"parseflags", "pars", "flag"}},
		{"pascal acronym", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"snake", "max_upload_size", []string{"max_upload_size", "max", "upload", "size"}},
		{"digits", "E4012", []string{"e4012"}},
		{"number alone", "status 404", []string{"status", "404"}},
		{"hex stays whole", "0x5e1f", []string{"0x5e1f"}},
		{"prose stems", "Parsing the flags fails", []string{"pars", "flag", "fail"}},
		{"stop words and short", "a b is to of it", nil},
		{"go keywords dropped", "func f() error { return nil }", []string{"error"}},
		{"qualified", "graphdb.Store.Begin", []string{"graphdb", "stor", "begin"}},
		{"unicode letters", "größe straße", []string{"größe", "straße"}},
		{"ies", "retries policies", []string{"retry", "policy"}},
		{"ied", "retried copied", []string{"retry", "copy"}},
		{"double consonant", "running called", []string{"run", "call"}},
		{"han around latin", "cli生成代码的import路径错误", []string{"cli", "生成", "成代", "代码", "码的", "import", "路径", "径错", "错误"}},
		{"han around a class name", "校验JSON数组的方法有问题", []string{"校验", "json", "数组", "组的", "的方", "方法", "法有", "有问", "问题"}},
		{"han around an identifier", "调用parseFlags时报错", []string{"调用", "parseflags", "pars", "flag", "时报", "报错"}},
		{"lone han", "在 config 里", []string{"在", "config", "里"}},
		{"digits apart from han", "第3个参数", []string{"第", "个参", "参数"}},
		{"kana with prolonged sound mark", "ユーザーを削除", []string{"ユー", "ーザ", "ザー", "ーを", "を削", "削除"}},
		{"hangul", "설정 파일", []string{"설정", "파일"}},
		{"overlong word dropped", "x" + string(make([]byte, 0)) + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ok", []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Text(tt.in)); diff != "" {
				t.Errorf("Text(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestStemInflections checks that the inflected forms of a verb meet its
// base form: the stemmer once made "retries" into "retry" but "retried"
// into "retri".
func TestStemInflections(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"retry":   {"retried", "retries", "retrying", "Retry", "retryPolicy"},
		"try":     {"tried", "tries", "trying"},
		"copy":    {"copied", "copies", "copying"},
		"apply":   {"applied", "applies", "applying"},
		"notify":  {"notified", "notifies", "notifying"},
		"parse":   {"parsed", "parses", "parsing"},
		"config":  {"configs"},
		"resolve": {"resolved", "resolves", "resolving"},
	}
	for base, forms := range tests {
		want := Text(base)
		if len(want) != 1 {
			t.Fatalf("Text(%q) = %q, want one term", base, want)
		}
		for _, f := range forms {
			if got := Text(f); !slices.Contains(got, want[0]) {
				t.Errorf("Text(%q) = %q, want it to hold %q, the stem of %q", f, got, want[0], base)
			}
		}
	}
}

// TestLongCJKRun checks that a run of CJK characters longer than a word
// the word table holds still yields each of its bigrams exactly once.
func TestLongCJKRun(t *testing.T) {
	t.Parallel()
	run := []rune(strings.Repeat("一二三四五六七八九十", 7) + "𠀀𠀁")
	var want []string
	for i := 0; i+1 < len(run); i++ {
		want = append(want, string(run[i:i+2]))
	}
	for _, text := range []string{string(run), "x " + string(run) + "abc"} {
		got := slices.DeleteFunc(Text(text), func(s string) bool { return s == "abc" })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Text(%.20q…) (-want +got):\n%s", text, diff)
		}
	}
}

// TestVocabAgrees checks that Vocab's scanner and word table give each
// text the ids of Text's terms, CJK runs and repeated words included.
func TestVocabAgrees(t *testing.T) {
	t.Parallel()
	texts := []string{
		"cli生成代码的import路径错误 cli生成代码的import路径错误",
		"校验JSON数组的方法有问题\nretried tried copied",
		strings.Repeat("長い文字列の処理", 20) + " HTTPServer größe",
		"ユーザー 설정 파일 第3个参数 e4012 parseFlags",
	}
	v := NewVocab()
	for _, text := range texts {
		checkVocab(t, v, text)
	}
}

func checkVocab(t *testing.T, v *Vocab, text string) {
	t.Helper()
	ids := v.AppendIDs(nil, text)
	got := make([]string, len(ids))
	for i, id := range ids {
		got[i] = v.Terms()[id]
	}
	if diff := cmp.Diff(Text(text), got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Vocab terms of %.40q differ from Text (-text +vocab):\n%s", text, diff)
	}
}

func TestTokenizePath(t *testing.T) {
	t.Parallel()
	got := Path("graphdb/embedded/store_test.go")
	want := []string{"graphdb", "embed", "store_test", "stor", "test", "go", "store_test.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Path (-want +got):\n%s", diff)
	}
}

func TestSplitIdent(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"ServeHTTP":      {"Serve", "HTTP"},
		"parseURL2":      {"parse", "URL", "2"},
		"__init__":       {"init"},
		"XMLHttpRequest": {"XML", "Http", "Request"},
		"already":        {"already"},
		"ERR_CONN_RESET": {"ERR", "CONN", "RESET"},
		"utf8DecodeRune": {"utf", "8", "Decode", "Rune"},
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, splitIdent(in)); diff != "" {
			t.Errorf("splitIdent(%q) (-want +got):\n%s", in, diff)
		}
	}
}

// generalTokenize is Tokenize through the general (rune) path only: the
// definition the ASCII fast path must agree with.
func generalTokenize(text string) []string {
	var out []string
	forEachWord(text, func(w string) { out = appendWordTerms(out, w) })
	return out
}

// TestTokenizeFastPathAgrees checks that the allocation-free ASCII path
// yields exactly the terms of the general path, on every Go and markdown
// file of this module (the figures of the eval goldens depend on it) and
// on words that exercise each stemming and splitting rule.
func TestTokenizeFastPathAgrees(t *testing.T) {
	t.Parallel()
	words := "ies policies retries studies ties running called stopped fixes passes buses status analysis " +
		"HTTPServer ServeHTTP parseURL2 __init__ XMLHttpRequest ERR_CONN_RESET utf8DecodeRune 1h30m e4012 0x5e1f " +
		"a_b A1b2C3 ABC abc_ _abc__def x2 RETURN Should should return func FUNC Func_Return ed eds seed sing singing " +
		"größeMax straßeName Éclair fooÜber naïve_value tried retried copied applied notified hoping " +
		"generational relational happily skies dying cli生成代码的import路径错误 校验JSON数组"
	// Words of the longest length indexed: one part per byte.
	texts := []string{words, strings.Repeat("a1", maxWordLen/2), strings.Repeat("aB", maxWordLen/2), strings.Repeat("_x", maxWordLen/2)}
	err := filepath.WalkDir("../../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md")) {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if diff := cmp.Diff(generalTokenize(text), Text(text)); diff != "" {
			t.Fatalf("fast path differs on %.80q (-general +fast):\n%s", text, diff)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"HTTPServer parses", "retries_ies", "utf8DecodeRune größe", "x__Y__z9", "aaaS",
		"cli生成代码的import路径错误", "校验JSON数组的方法有问题", "ユーザー設定", "설정 파일", "tried copied"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if diff := cmp.Diff(generalTokenize(s), Text(s)); diff != "" {
			t.Errorf("Text(%q) (-general +fast):\n%s", s, diff)
		}
		checkVocab(t, NewVocab(), s)
	})
}
